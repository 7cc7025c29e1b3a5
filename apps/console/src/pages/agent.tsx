import { useState } from 'react';
import type { Schemas } from '../api';
import { Check, Field, Form } from '../components/form';
import { PlanPicker } from '../components/pickers';
import { CopyButton, EmptyState, PageHeader, QueryView } from '../components/ui';
import { useAccountSettings, usePricingJson, useSaveAccountSettings } from '../queries/account';
import { usePlans } from '../queries/catalog';
import { paths } from '../routes';

type Settings = Schemas['AccountSettings'];

/**
 * The agent surface: the account settings that open it (each validation message shown next to its
 * field, from the error envelope's fields), the live pricing.json an agent reads, and a copyable
 * quick start mirroring the README's Agents section.
 */
export default function AgentPage() {
  const settings = useAccountSettings();
  return (
    <section>
      <PageHeader title="Agent surface" />
      <QueryView query={settings} what="account settings">
        {(s) => (
          <>
            <SettingsForm s={s} />
            <PricingPreview slug={s.publicCatalogEnabled ? s.slug : null} />
            <QuickStart slug={s.slug ?? 'acme'} />
          </>
        )}
      </QueryView>
    </section>
  );
}

const formOf = (s: Settings) => ({
  slug: s.slug ?? '',
  publicCatalogEnabled: s.publicCatalogEnabled,
  agentSignupEnabled: s.agentSignupEnabled,
  agentSignupDefaultPlanId: s.agentSignupDefaultPlanId ?? '',
  agentSignupHourlyCap: String(s.agentSignupHourlyCap),
  agentMaxTopupAmount: s.agentMaxTopupAmount === null ? '' : String(s.agentMaxTopupAmount),
  agentProvisionalDays: String(s.agentProvisionalDays),
  agentSignupPerIpCap: s.agentSignupPerIpCap === null ? '' : String(s.agentSignupPerIpCap),
  agentSpendMandateEnabled: s.agentSpendMandateEnabled,
  agentMaxMandateAmount: s.agentMaxMandateAmount === null ? '' : String(s.agentMaxMandateAmount),
});

/** A whole-number text as a number (the API's message explains anything else), empty as null. */
const wholeOrNull = (text: string) => (text === '' ? null : ((/^\d+$/.test(text) ? Number(text) : text) as number));

/** The form as the API takes it: empty texts are nulls, the cap a number when it is one, the top-up decimal text as typed. */
function bodyOf(form: ReturnType<typeof formOf>) {
  return {
    slug: form.slug || null,
    publicCatalogEnabled: form.publicCatalogEnabled,
    agentSignupEnabled: form.agentSignupEnabled,
    agentSignupDefaultPlanId: form.agentSignupDefaultPlanId || null,
    agentSignupHourlyCap: (/^\d+$/.test(form.agentSignupHourlyCap) ? Number(form.agentSignupHourlyCap) : form.agentSignupHourlyCap) as number,
    agentMaxTopupAmount: (form.agentMaxTopupAmount || null) as number | null,
    agentProvisionalDays: (wholeOrNull(form.agentProvisionalDays) ?? form.agentProvisionalDays) as number,
    agentSignupPerIpCap: wholeOrNull(form.agentSignupPerIpCap),
    agentSpendMandateEnabled: form.agentSpendMandateEnabled,
    agentMaxMandateAmount: (form.agentMaxMandateAmount || null) as number | null,
  };
}

function SettingsForm({ s }: { s: Settings }) {
  const [form, setForm] = useState(() => formOf(s));
  const save = useSaveAccountSettings();
  type Text = 'slug' | 'agentSignupHourlyCap' | 'agentMaxTopupAmount' | 'agentProvisionalDays' | 'agentSignupPerIpCap' | 'agentMaxMandateAmount';
  const input = (name: Text, inputMode?: 'numeric' | 'decimal') => (
    <input inputMode={inputMode} value={form[name]} onChange={(e) => setForm({ ...form, [name]: e.target.value })} />
  );
  return (
    <Form label="Agent settings" layout="grid" submission={save} onSubmit={() => save.mutate(bodyOf(form))} submit="Save agent settings" failed="Not saved" saved>
      <Field label="Catalog slug" name="slug">
        {input('slug')}
      </Field>
      <Check label="Public catalog (pricing.json)" checked={form.publicCatalogEnabled} onChange={(publicCatalogEnabled) => setForm({ ...form, publicCatalogEnabled })} />
      <Check label="Agent signup" checked={form.agentSignupEnabled} onChange={(agentSignupEnabled) => setForm({ ...form, agentSignupEnabled })} />
      <Field label="Signup plan (a free ACTIVE plan)" name="agentSignupDefaultPlanId">
        <PlanPicker statuses={['ACTIVE']} placeholder="None" value={form.agentSignupDefaultPlanId} onChange={(id) => setForm({ ...form, agentSignupDefaultPlanId: id })} />
      </Field>
      <NoActivePlan />
      <Field label="Signups per hour" name="agentSignupHourlyCap">
        {input('agentSignupHourlyCap', 'numeric')}
      </Field>
      <Field label={`Largest agent top-up (${s.currency})`} name="agentMaxTopupAmount">
        {input('agentMaxTopupAmount', 'decimal')}
      </Field>
      <Field label="Days a signup stays provisional" name="agentProvisionalDays">
        {input('agentProvisionalDays', 'numeric')}
      </Field>
      <Field label="Signups per address per hour (empty: no cap)" name="agentSignupPerIpCap">
        {input('agentSignupPerIpCap', 'numeric')}
      </Field>
      <Check label="Agent spend mandates" checked={form.agentSpendMandateEnabled} onChange={(agentSpendMandateEnabled) => setForm({ ...form, agentSpendMandateEnabled })} />
      <Field label={`Largest spend mandate per period (${s.currency})`} name="agentMaxMandateAmount">
        {input('agentMaxMandateAmount', 'decimal')}
      </Field>
    </Form>
  );
}

/** Agents sign up to an ACTIVE plan: with none yet, the way to make one. */
function NoActivePlan() {
  const plans = usePlans();
  if (!plans.data || plans.data.some((p) => p.status === 'ACTIVE')) return null;
  return <EmptyState next={{ label: 'Create and activate a plan', to: paths.plans }}>No ACTIVE plan to offer agents yet.</EmptyState>;
}

function PricingPreview({ slug }: { slug: string | null }) {
  const pricing = usePricingJson(slug);
  return (
    <>
      <h2>pricing.json (live)</h2>
      {slug === null ? (
        <EmptyState>The public catalog is closed: set a slug and open it to publish pricing.json.</EmptyState>
      ) : (
        <QueryView query={pricing} what="pricing.json">
          {(text) => (
            <div className="copy-block">
              <p className="muted small">
                <a href={`/public/v1/catalog/${slug}/pricing.json`}>/public/v1/catalog/{slug}/pricing.json</a>
              </p>
              <pre data-testid="pricing-json" tabIndex={0} aria-label="pricing.json">{text}</pre>
            </div>
          )}
        </QueryView>
      )}
    </>
  );
}

function QuickStart({ slug }: { slug: string }) {
  const origin = window.location.origin;
  const text = `# 1. Read the pricing (no auth)
curl -s ${origin}/public/v1/catalog/${slug}/pricing.json

# 2. Sign up: a customer on the free plan and a customer key (shown once)
curl -s -X POST ${origin}/public/v1/catalog/${slug}/signup \\
  -H 'Content-Type: application/json' -d '{"email":"agent@example.com","name":"Research bot"}'

# 3. Use the ck_ key on the routes open to customer keys
curl -s -H "Authorization: Bearer $CK" ${origin}/api/v1/client/entitlements/$REF/ai.chat
curl -s -X POST -H "Authorization: Bearer $CK" -H 'Content-Type: application/json' \\
  ${origin}/api/v1/client/events -d '{"eventName":"chat.message","eventIdempotencyKey":"m-1","featureKey":"ai.chat","usageUnits":1}'
curl -s -H "Authorization: Bearer $CK" ${origin}/api/v1/client/credits/$REF/pools`;
  return (
    <>
      <h2>Agent quick start</h2>
      <div className="copy-block">
        <pre data-testid="quick-start" tabIndex={0} aria-label="Agent quick start commands">{text}</pre>
        <CopyButton text={text} label="Copy quick start" className="secondary" />
      </div>
    </>
  );
}
