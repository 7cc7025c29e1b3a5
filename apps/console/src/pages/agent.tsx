import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { api, ApiError, unwrap, type Schemas } from '../api';
import { ErrorNote, PageHeader, QueryView } from '../ui';

type Settings = Schemas['AccountSettings'];

/**
 * The agent surface: the account settings that open it (each validation message shown next to its
 * field, from the error envelope's fields), the live pricing.json an agent reads, and a copyable
 * quick start mirroring the README's Agents section.
 */
export default function AgentPage() {
  const settings = useQuery({ queryKey: ['account-settings'], queryFn: () => unwrap(api.GET('/api/v1/tanso/account-settings')) });
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

function SettingsForm({ s }: { s: Settings }) {
  const queryClient = useQueryClient();
  const [slug, setSlug] = useState(s.slug ?? '');
  const [publicCatalogEnabled, setPublic] = useState(s.publicCatalogEnabled);
  const [agentSignupEnabled, setSignup] = useState(s.agentSignupEnabled);
  const [agentSignupDefaultPlanId, setPlan] = useState(s.agentSignupDefaultPlanId ?? '');
  const [agentSignupHourlyCap, setCap] = useState(String(s.agentSignupHourlyCap));
  const [agentMaxTopupAmount, setTopup] = useState(s.agentMaxTopupAmount === null ? '' : String(s.agentMaxTopupAmount));
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PATCH('/api/v1/tanso/account-settings', {
          body: {
            slug: slug || null,
            publicCatalogEnabled,
            agentSignupEnabled,
            agentSignupDefaultPlanId: agentSignupDefaultPlanId || null,
            agentSignupHourlyCap: (/^\d+$/.test(agentSignupHourlyCap) ? Number(agentSignupHourlyCap) : agentSignupHourlyCap) as number,
            agentMaxTopupAmount: (agentMaxTopupAmount || null) as number | null,
          },
        }),
      ),
    onSuccess: (next) => {
      queryClient.setQueryData(['account-settings'], next);
      void queryClient.invalidateQueries({ queryKey: ['pricing-json'] });
    },
  });
  const fieldErrors = save.error instanceof ApiError ? save.error.fields : [];
  const errorOf = (field: string) => fieldErrors.filter((f) => f.field === field || f.field.startsWith(`${field}.`)).map((f) => f.message);
  const known = ['slug', 'publicCatalogEnabled', 'agentSignupEnabled', 'agentSignupDefaultPlanId', 'agentSignupHourlyCap', 'agentMaxTopupAmount'];
  const field = (name: string, label: string, input: ReactNode) => (
    <label>
      {label}
      {input}
      {errorOf(name).map((m) => (
        <span key={m} className="field-error" role="alert">
          {m}
        </span>
      ))}
    </label>
  );
  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }
  // A message with no field of this form (a cross-field rule) is shown above the button.
  const generalError = save.error && !fieldErrors.some((f) => known.some((k) => f.field === k || f.field.startsWith(`${k}.`))) ? save.error : null;
  return (
    <form className="form-grid card" onSubmit={submit} aria-label="Agent settings">
      {field('slug', 'Catalog slug', <input value={slug} onChange={(e) => setSlug(e.target.value)} />)}
      <label className="check">
        <input type="checkbox" checked={publicCatalogEnabled} onChange={(e) => setPublic(e.target.checked)} /> Public catalog (pricing.json)
      </label>
      <label className="check">
        <input type="checkbox" checked={agentSignupEnabled} onChange={(e) => setSignup(e.target.checked)} /> Agent signup
      </label>
      {field('agentSignupDefaultPlanId', 'Signup plan id (a free ACTIVE plan)', <input value={agentSignupDefaultPlanId} onChange={(e) => setPlan(e.target.value)} />)}
      {field('agentSignupHourlyCap', 'Signups per hour', <input inputMode="numeric" value={agentSignupHourlyCap} onChange={(e) => setCap(e.target.value)} />)}
      {field('agentMaxTopupAmount', `Largest agent top-up (${s.currency})`, <input inputMode="decimal" value={agentMaxTopupAmount} onChange={(e) => setTopup(e.target.value)} />)}
      <div className="row">
        <button type="submit" disabled={save.isPending}>
          Save agent settings
        </button>
        {save.isSuccess ? <span role="status">Saved.</span> : null}
      </div>
      {generalError ? <ErrorNote error={generalError} title="Not saved" /> : save.error ? <p className="muted small">Not saved: see the messages above.</p> : null}
    </form>
  );
}

function PricingPreview({ slug }: { slug: string | null }) {
  const pricing = useQuery({
    queryKey: ['pricing-json', slug],
    enabled: slug !== null,
    queryFn: async () => {
      const res = await fetch(`/public/v1/catalog/${encodeURIComponent(slug!)}/pricing.json`);
      const text = await res.text();
      if (!res.ok) throw new Error(`${res.status}: ${text}`);
      return JSON.stringify(JSON.parse(text), null, 2);
    },
  });
  return (
    <>
      <h2>pricing.json (live)</h2>
      {slug === null ? (
        <p className="empty">The public catalog is closed: set a slug and open it to publish pricing.json.</p>
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
  const [copied, setCopied] = useState(false);
  return (
    <>
      <h2>Agent quick start</h2>
      <div className="copy-block">
        <pre data-testid="quick-start" tabIndex={0} aria-label="Agent quick start commands">{text}</pre>
        <button type="button" className="secondary" onClick={() => void navigator.clipboard?.writeText(text).then(() => setCopied(true), () => setCopied(false))}>
          {copied ? 'Copied' : 'Copy quick start'}
        </button>
      </div>
    </>
  );
}
