/**
 * Pickers: a select listing plans, features, credit models … by name, wherever a UUID box would
 * otherwise be. Wrap one in a `Field` for its label and the API's messages for that field.
 */
import type { Schemas } from '../api';
import { formatMoney } from '../format';
import { useFeatures, usePlans } from '../queries/catalog';
import { useCreditModels } from '../queries/credits';

type Plan = Schemas['Plan'];
type Feature = Schemas['Feature'];

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
