import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api';
import { decimalText, formatCredits } from '../format';
import { Empty, ErrorNote, PageHeader, QueryView, StatusBadge, Time, UnitPrice } from '../ui';

type Warning = Schemas['CreditTariffWarning'];
/** A success answer without data (a delete). */
type EmptyAnswer = { data?: { data?: undefined }; error?: unknown; response: Response };

/**
 * Credits: the credit models, the weight tariff (credits per unit by feature and model) and the
 * price book (price per credit), each with its scheduled rows (a future row can be deleted before
 * it takes effect), and the ledger audit with its result.
 */
export default function CreditsPage() {
  return (
    <section>
      <PageHeader title="Credits" />
      <Models />
      <Weights />
      <Prices />
      <Audit />
    </section>
  );
}

function Models() {
  const queryClient = useQueryClient();
  const models = useQuery({ queryKey: ['credit-models'], queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/models')) });
  const [name, setName] = useState('');
  const [denomination, setDenomination] = useState('');
  const [hardLimit, setHardLimit] = useState(false);
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/monetization/credits/models', { body: { name, denomination, hardLimit } })),
    onSuccess: () => {
      setName('');
      setDenomination('');
      void queryClient.invalidateQueries({ queryKey: ['credit-models'] });
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <>
      <h2>Credit models</h2>
      <QueryView query={models} what="credit models">
        {(list) =>
          list.length === 0 ? (
            <Empty>No credit model yet.</Empty>
          ) : (
            <table aria-label="Credit models">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Denomination</th>
                  <th>Limit</th>
                  <th>Rollover</th>
                  <th>Created</th>
                </tr>
              </thead>
              <tbody>
                {list.map((m) => (
                  <tr key={m.id}>
                    <td>{m.name}</td>
                    <td>
                      <code>{m.denomination}</code>
                    </td>
                    <td>{m.hardLimit ? 'hard' : 'soft'}</td>
                    <td>
                      {m.rolloverPolicy}
                      {m.rolloverCap !== null ? ` (cap ${formatCredits(m.rolloverCap)})` : ''}
                    </td>
                    <td>
                      <Time iso={m.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
      <form className="inline-form" onSubmit={submit} aria-label="New credit model">
        <label>
          Name
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Denomination
          <input required value={denomination} onChange={(e) => setDenomination(e.target.value)} />
        </label>
        <label className="check">
          <input type="checkbox" checked={hardLimit} onChange={(e) => setHardLimit(e.target.checked)} /> Hard limit
        </label>
        <button type="submit" disabled={create.isPending}>
          Create credit model
        </button>
        <ErrorNote error={create.error} title="Credit model not created" />
      </form>
    </>
  );
}

/** datetime-local text (the user's zone) as an ISO instant. */
const isoOf = (local: string) => new Date(local).toISOString();

function Warnings({ warnings }: { warnings: Warning[] | undefined }) {
  if (!warnings?.length) return null;
  return (
    <div className="notice" role="note">
      <ul>
        {warnings.map((w, i) => (
          <li key={i}>{(w as { message?: string }).message ?? JSON.stringify(w)}</li>
        ))}
      </ul>
    </div>
  );
}

function Weights() {
  const queryClient = useQueryClient();
  const weights = useQuery({ queryKey: ['credit-weights'], queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/weights')) });
  const features = useQuery({ queryKey: ['features'], queryFn: () => unwrap(api.GET('/api/v1/monetization/features')) });
  const [featureId, setFeatureId] = useState('');
  const [model, setModel] = useState('');
  const [creditsPerUnit, setCreditsPerUnit] = useState('');
  const [from, setFrom] = useState('');
  const [warnings, setWarnings] = useState<Warning[] | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['credit-weights'] });
  const publish = useMutation({
    mutationFn: async () => {
      const answer = await api.POST('/api/v1/monetization/credits/weights/publish', {
        body: { effectiveFrom: isoOf(from), entries: [{ featureId, creditsPerUnit: creditsPerUnit as unknown as number, ...(model ? { model } : {}) }] },
      });
      await unwrap(Promise.resolve(answer));
      return answer.data?.warnings;
    },
    onSuccess: (w) => {
      setWarnings(w);
      setCreditsPerUnit('');
      setModel('');
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/v1/monetization/credits/weights/{id}', { params: { path: { id } } }) as Promise<EmptyAnswer>),
    onSettled: () => void refresh(),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    publish.mutate();
  }
  const featureList = features.data ?? [];
  return (
    <>
      <h2>Weight tariff</h2>
      <QueryView query={weights} what="the weight tariff">
        {(list) =>
          list.length === 0 ? (
            <Empty>No weight row: one unit burns one credit.</Empty>
          ) : (
            <table aria-label="Weight tariff">
              <thead>
                <tr>
                  <th>Feature</th>
                  <th>Model</th>
                  <th className="num">Credits per unit</th>
                  <th>Effective from</th>
                  <th>Status</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {list.map((w) => (
                  <tr key={w.id}>
                    <td>
                      <code>{w.featureKey}</code>
                    </td>
                    <td>{w.model ?? <span className="muted">feature default</span>}</td>
                    <td className="num">{decimalText(w.creditsPerUnit)}</td>
                    <td>
                      <Time iso={w.effectiveFrom} />
                    </td>
                    <td>
                      <StatusBadge status={w.status} />
                    </td>
                    <td>
                      {w.status === 'SCHEDULED' ? (
                        <button type="button" className="danger" aria-label={`Delete scheduled weight ${w.featureKey} ${w.model ?? 'default'}`} onClick={() => remove.mutate(w.id)}>
                          Delete
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
      <ErrorNote error={remove.error} title="Not deleted" />
      <form className="inline-form" onSubmit={submit} aria-label="Publish weight">
        <label>
          Feature
          <select required value={featureId} onChange={(e) => setFeatureId(e.target.value)}>
            <option value="">Choose…</option>
            {featureList.map((f) => (
              <option key={f.id} value={f.id}>
                {f.key}
              </option>
            ))}
          </select>
        </label>
        <label>
          Model (empty: feature default)
          <input value={model} onChange={(e) => setModel(e.target.value)} />
        </label>
        <label>
          Credits per unit
          <input required inputMode="decimal" value={creditsPerUnit} onChange={(e) => setCreditsPerUnit(e.target.value)} />
        </label>
        <label>
          Effective from
          <input required type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <button type="submit" disabled={publish.isPending}>
          Publish weight
        </button>
        <ErrorNote error={publish.error} title="Weight not published" />
      </form>
      <Warnings warnings={warnings} />
    </>
  );
}

function Prices() {
  const queryClient = useQueryClient();
  const prices = useQuery({ queryKey: ['credit-prices'], queryFn: () => unwrap(api.GET('/api/v1/monetization/credits/prices')) });
  const [denomination, setDenomination] = useState('');
  const [currency, setCurrency] = useState('USD');
  const [pricePerCredit, setPricePerCredit] = useState('');
  const [from, setFrom] = useState('');
  const [warnings, setWarnings] = useState<Warning[] | undefined>();
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['credit-prices'] });
  const publish = useMutation({
    mutationFn: async () => {
      const answer = await api.POST('/api/v1/monetization/credits/prices/publish', {
        body: { effectiveFrom: isoOf(from), entries: [{ denomination: denomination || null, currency, pricePerCredit: pricePerCredit as unknown as number }] },
      });
      await unwrap(Promise.resolve(answer));
      return answer.data?.warnings;
    },
    onSuccess: (w) => {
      setWarnings(w);
      setPricePerCredit('');
      void refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/v1/monetization/credits/prices/{id}', { params: { path: { id } } }) as Promise<EmptyAnswer>),
    onSettled: () => void refresh(),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    publish.mutate();
  }
  return (
    <>
      <h2>Price book</h2>
      <QueryView query={prices} what="the price book">
        {(list) =>
          list.length === 0 ? (
            <Empty>No price per credit yet.</Empty>
          ) : (
            <table aria-label="Price book">
              <thead>
                <tr>
                  <th>Denomination</th>
                  <th>Currency</th>
                  <th className="num">Price per credit</th>
                  <th>Effective from</th>
                  <th>Status</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {list.map((p) => (
                  <tr key={p.id}>
                    <td>
                      <code>{p.denomination}</code>
                    </td>
                    <td>{p.currency}</td>
                    <td className="num">
                      <UnitPrice amount={p.pricePerCredit} currency={p.currency} />
                    </td>
                    <td>
                      <Time iso={p.effectiveFrom} />
                    </td>
                    <td>
                      <StatusBadge status={p.status} />
                    </td>
                    <td>
                      {p.status === 'SCHEDULED' ? (
                        <button type="button" className="danger" aria-label={`Delete scheduled price ${p.denomination} ${decimalText(p.pricePerCredit)}`} onClick={() => remove.mutate(p.id)}>
                          Delete
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
      <ErrorNote error={remove.error} title="Not deleted" />
      <form className="inline-form" onSubmit={submit} aria-label="Publish price">
        <label>
          Denomination
          <input required value={denomination} onChange={(e) => setDenomination(e.target.value)} />
        </label>
        <label>
          Currency
          <input required value={currency} onChange={(e) => setCurrency(e.target.value)} />
        </label>
        <label>
          Price per credit
          <input required inputMode="decimal" value={pricePerCredit} onChange={(e) => setPricePerCredit(e.target.value)} />
        </label>
        <label>
          Effective from
          <input required type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <button type="submit" disabled={publish.isPending}>
          Publish price
        </button>
        <ErrorNote error={publish.error} title="Price not published" />
      </form>
      <Warnings warnings={warnings} />
    </>
  );
}

function Audit() {
  const audit = useMutation({ mutationFn: () => unwrap(api.GET('/api/v1/monetization/credits/audit')) });
  return (
    <>
      <h2>Ledger audit</h2>
      <p className="muted">Recomputes every pool's balance from its ledger and compares it with the stored balance.</p>
      <button type="button" disabled={audit.isPending} onClick={() => audit.mutate()}>
        {audit.isPending ? 'Auditing…' : 'Run ledger audit'}
      </button>
      <ErrorNote error={audit.error} title="Audit failed" />
      {audit.data ? (
        <div role="status" data-testid="audit-result" className={audit.data.discrepancies.length ? 'error-note' : 'notice'}>
          {audit.data.poolsChecked} pools checked:{' '}
          {audit.data.discrepancies.length === 0 ? (
            'no discrepancy.'
          ) : (
            <ul>
              {audit.data.discrepancies.map((d) => (
                <li key={d.poolId + d.problem}>
                  <code>{d.poolId}</code>: {d.problem}
                </li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </>
  );
}
