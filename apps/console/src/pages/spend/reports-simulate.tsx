import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api';
import { formatCredits } from '../../format';
import { ErrorNote } from '../../ui';
import { dollars } from './common';

/**
 * What one model's tokens of a window would cost at another's rates (advice only: the API reroutes
 * nothing). `models` are the window's vendor models, offered as suggestions; the target is a
 * price-book model with input and output rates.
 */
export function SimulateForm({ models }: { models: string[] }) {
  const book = useQuery({ queryKey: ['spend-models'], queryFn: () => unwrap(api.GET('/api/v1/spend/reports/models')) });
  const targets = (book.data ?? []).filter((m) => m.inputCostPerMillion !== null && m.outputCostPerMillion !== null).map((m) => m.model);
  const [fromModel, setFromModel] = useState('');
  const [toModel, setToModel] = useState('');
  const [workspaceId, setWorkspaceId] = useState('');
  const simulate = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/spend/reports/simulate', { body: { fromModel, toModel, ...(workspaceId.trim() ? { workspaceId: workspaceId.trim() } : {}) } })),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    simulate.mutate();
  }
  const result = simulate.data;
  return (
    <>
      <form className="inline-form" onSubmit={submit} aria-label="Simulate">
        <label>
          From model
          <input list="simulate-from-models" required value={fromModel} onChange={(e) => setFromModel(e.target.value)} />
          <datalist id="simulate-from-models">
            {models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
        <label>
          To model
          <input list="simulate-to-models" required value={toModel} onChange={(e) => setToModel(e.target.value)} />
          <datalist id="simulate-to-models">
            {targets.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
        <label>
          Workspace (optional)
          <input value={workspaceId} onChange={(e) => setWorkspaceId(e.target.value)} />
        </label>
        <button type="submit" disabled={simulate.isPending}>
          Simulate
        </button>
        <ErrorNote error={simulate.error} title="Not simulated" />
      </form>
      {result ? (
        <div className="card" role="region" aria-label="Simulation">
          <dl className="stats">
            <div className="stat">
              <dt>Current</dt>
              <dd data-testid="sim-current">{dollars(result.currentCents)}</dd>
            </div>
            <div className="stat">
              <dt>At {result.toModel}</dt>
              <dd data-testid="sim-simulated">{dollars(result.simulatedCents)}</dd>
            </div>
            <div className="stat">
              <dt>Difference</dt>
              <dd data-testid="sim-delta">{dollars(result.deltaCents)}</dd>
            </div>
            <div className="stat">
              <dt>Tokens (in / out)</dt>
              <dd>
                {formatCredits(result.uncachedInputTokens)} / {formatCredits(result.outputTokens)}
              </dd>
            </div>
          </dl>
          <p className="muted">
            {result.fromModel} → {result.toModel}, {result.from} → {result.to}
          </p>
          <ul aria-label="Caveats">
            {result.caveats.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}
