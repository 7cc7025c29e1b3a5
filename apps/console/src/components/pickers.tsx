/**
 * Pickers: a select listing plans, features, credit models, customers or a customer's
 * subscriptions by name, wherever a UUID box would otherwise be. Wrap one in a `Field` for its
 * label and the API's messages for that field.
 */
import type { Schemas } from '../api';
import { formatMoney } from '../format';
import { useInvoices } from '../queries/billing';
import { useFeatures, usePlans } from '../queries/catalog';
import { useAllPools, useCreditModels } from '../queries/credits';
import { useCustomers } from '../queries/customers';
import { useSpendUnits } from '../queries/spend';
import { planNameOf } from './billing-tables';

type Plan = Schemas['Plan'];
type Feature = Schemas['Feature'];
type Invoice = Schemas['Invoice'];
type Subscription = NonNullable<Invoice['subscription']>;

type PickerProps = {
  value: string;
  onChange: (id: string) => void;
  name?: string;
  required?: boolean;
  /** The first, empty option ("Choose a plan…"; "None" where no choice is a valid answer). */
  placeholder?: string;
  /** Ids left out of the list (features already linked). */
  exclude?: string[];
};

type Read<T> = { data: T[] | undefined; isPending: boolean };

function Picker<T extends { id: string }>(props: PickerProps & { read: Read<T>; label: (row: T) => string; what: string; optionValue?: (row: T) => string }) {
  const { read, label, what, value, onChange, name, required, placeholder, exclude = [], optionValue = (row) => row.id } = props;
  const rows = (read.data ?? []).filter((row) => !exclude.includes(row.id));
  const first = read.isPending ? `Loading ${what}…` : rows.length === 0 && !placeholder ? `No ${what} to choose` : (placeholder ?? `Choose…`);
  return (
    <select name={name} required={required} value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{first}</option>
      {rows.map((row) => (
        <option key={row.id} value={optionValue(row)}>
          {label(row)}
        </option>
      ))}
    </select>
  );
}

/** "Pro (pro) · $49.90 / 1 mo": a plan as a picker lists it. */
export function planLabel(p: Plan): string {
  const price = p.priceAmount === null || p.priceAmount === undefined ? '' : ` · ${formatMoney(p.priceAmount, p.currency)}${p.intervalMonths ? ` / ${p.intervalMonths} mo` : ''}`;
  return `${p.name ?? p.key} (${p.key})${price}`;
}

/** A select of the account's plans by name; `statuses` narrows it (ACTIVE for a subscription or a signup plan). */
export function PlanPicker({ statuses, ...props }: PickerProps & { statuses?: Plan['status'][] }) {
  const plans = usePlans();
  const data = plans.data?.filter((p) => !statuses || statuses.includes(p.status));
  return <Picker {...props} read={{ data, isPending: plans.isPending }} label={planLabel} what={statuses?.length === 1 ? `${statuses[0]!.toLowerCase()} plans` : 'plans'} />;
}

/** A select of the account's features by name ("Messages (messages)"). */
export function FeaturePicker(props: PickerProps) {
  return <Picker {...props} read={useFeatures()} label={(f: Feature) => `${f.name} (${f.key})`} what="features" />;
}

/** A select of the account's credit models by name; `by` says what the value is (the model's id, or its denomination). */
export function CreditModelPicker({ by = 'id', ...props }: PickerProps & { by?: 'id' | 'denomination' }) {
  const models = useCreditModels();
  return <Picker {...props} read={models} label={(m) => `${m.name} (${m.denomination})`} what="credit models" optionValue={(m) => (by === 'id' ? m.id : m.denomination)} />;
}

/** A select of the account's credit pools by name and denomination. */
export function PoolPicker(props: PickerProps) {
  return <Picker {...props} read={useAllPools()} label={(p) => `${p.name} (${p.denomination})`} what="credit pools" />;
}

/** A select of the account's customers by reference and name; `none` names the empty choice when none is allowed. */
export function CustomerPicker({ none, ...props }: PickerProps & { none?: string }) {
  const customers = useCustomers();
  const label = (c: Schemas['AdminCustomer']) => [c.customerReferenceId, [c.firstName, c.lastName].filter(Boolean).join(' ') || c.email].filter(Boolean).join(' · ');
  return <Picker {...props} placeholder={none ?? props.placeholder} read={customers} label={label} what="customers" />;
}

/** A customer's subscriptions as their invoices carry them (the Admin API has no subscription list); undefined while loading. */
export function customerSubscriptions(invoices: Invoice[] | undefined): Subscription[] | undefined {
  if (!invoices) return undefined;
  const byId = new Map<string, Subscription>();
  for (const i of invoices) if (i.subscription && !byId.has(i.subscription.id)) byId.set(i.subscription.id, i.subscription);
  return [...byId.values()];
}

/** "Pro · ACTIVE": a subscription by its plan's name and status. */
export function subscriptionLabel(s: Subscription): string {
  return `${planNameOf(s.plan)} · ${s.status}`;
}

/** A select of one customer's subscriptions by plan name and status. */
export function SubscriptionPicker({ customerId, ...props }: PickerProps & { customerId: string }) {
  const invoices = useInvoices(customerId);
  return <Picker {...props} read={{ data: customerSubscriptions(invoices.data), isPending: invoices.isPending }} label={subscriptionLabel} what="subscriptions" />;
}

/** A select of the account's spend units ("Backend (TEAM)"); `exclude` leaves out a unit that cannot be chosen (itself, as its own parent). */
export function SpendUnitPicker(props: PickerProps) {
  return <Picker {...props} read={useSpendUnits()} label={(u) => `${u.name} (${u.type})`} what="spend units" />;
}
