import { useState } from 'react';
import { Stats } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { formatCredits } from '../../format';
import { useSimulate, useSpendModels } from '../../queries/spend';
import { dollars } from './common';

/**
 * What one model's tokens of a window would cost at another's rates (advice only: the API reroutes
 * nothing). `models` are the window's vendor models, offered as suggestions; the target is a
 * price-book model with input and output rates.
 */
export function SimulateForm({ models }: { models: string[] }) {
  const book = useSpendModels();
  const targets = (book.data ?? []).filter((m) => m.inputCostPerMillion !== null && m.outputCostPerMillion !== null).map((m) => m.model);
  const [fromModel, setFromModel] = useState('');
  const [toModel, setToModel] = useState('');
  const [workspaceId, setWorkspaceId] = useState('');
  const simulate = useSimulate();
  const submit = () => simulate.mutate({ fromModel, toModel, ...(workspaceId.trim() ? { workspaceId: workspaceId.trim() } : {}) });
  const result = simulate.data;
  return (
    <>
      <Form access="read" label="Simulate" submission={simulate} onSubmit={submit} submit="Simulate" failed="Not simulated">
        <Field label="From model">
          <input list="simulate-from-models" required value={fromModel} onChange={(e) => setFromModel(e.target.value)} />
          <datalist id="simulate-from-models">
            {models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </Field>
        <Field label="To model">
          <input list="simulate-to-models" required value={toModel} onChange={(e) => setToModel(e.target.value)} />
          <datalist id="simulate-to-models">
            {targets.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </Field>
        <Field label="Workspace (optional)">
          <input value={workspaceId} onChange={(e) => setWorkspaceId(e.target.value)} />
        </Field>
      </Form>
      {result ? (
        <div className="card" role="region" aria-label="Simulation">
          <Stats
            items={[
              { label: 'Current', testId: 'sim-current', value: dollars(result.currentCents) },
              { label: `At ${result.toModel}`, testId: 'sim-simulated', value: dollars(result.simulatedCents) },
              { label: 'Difference', testId: 'sim-delta', value: dollars(result.deltaCents) },
              { label: 'Tokens (in / out)', value: `${formatCredits(result.uncachedInputTokens)} / ${formatCredits(result.outputTokens)}` },
            ]}
          />
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
