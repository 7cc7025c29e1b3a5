import { useState } from 'react';
import { ConfirmButton, useConfirm } from '../../components/confirm-dialog';
import { DataTable, type Column } from '../../components/data-table';
import { Credits, MaybeMoney, Money, Time } from '../../components/figures';
import { Field, Form } from '../../components/form';
import { ErrorNote, StatusBadge } from '../../components/ui';
import {
  useAutoTopupAttempts,
  useAutoTopupRule,
  useDeleteAutoTopup,
  useSaveAutoTopup,
  type AutoTopupAttempt,
  type AutoTopupDraft,
  type AutoTopupRule,
} from '../../queries/credits';

type Pool = { id: string; name: string; denomination: string };

const ATTEMPT_COLUMNS: Column<AutoTopupAttempt>[] = [
  { header: 'When', cell: (a) => <Time iso={a.createdAt} /> },
  { header: 'Status', cell: (a) => <StatusBadge status={a.status} /> },
  { header: 'Credits', num: true, cell: (a) => <Credits amount={a.credits} /> },
  { header: 'Amount', num: true, cell: (a) => <Money amount={a.amount} currency={a.currency} /> },
  { header: 'Balance at trigger', num: true, cell: (a) => <Credits amount={a.balanceAtTrigger} /> },
  { header: 'Payment', cell: (a) => a.paymentIntentId ?? '' },
  { header: 'Failure', cell: (a) => (a.failureCode ? `${a.failureCode}${a.counted ? ' (counted)' : ''}: ${a.failureMessage ?? ''}` : '') },
];

/** A customer pool's auto top-up (api-contract-money.md §2): the rule with its state, edit and disable, and its attempts, newest first. */
export function AutoTopup({ pool, customerRef }: { pool: Pool; customerRef: string }) {
  const rule = useAutoTopupRule(customerRef, pool.id);
  const attempts = useAutoTopupAttempts(customerRef, pool.id);
  return (
    <>
      <h4>Auto top-up</h4>
      {rule.data ? <RuleSummary rule={rule.data} /> : rule.isSuccess ? <p>No auto top-up rule: set one below to buy credits when the balance falls below a threshold.</p> : null}
      <ErrorNote error={rule.error} title="Auto top-up rule not read" />
      {rule.isSuccess ? <RuleForm key={rule.data?.modifiedAt ?? 'none'} pool={pool} customerRef={customerRef} rule={rule.data} /> : null}
      <DataTable
        label={`Auto top-up attempts of ${pool.name}`}
        what="auto top-up attempts"
        query={attempts}
        columns={ATTEMPT_COLUMNS}
        rows={attempts.data?.items}
        rowKey={(a) => a.id}
        empty="No auto top-up attempt yet."
      />
    </>
  );
}

function RuleSummary({ rule }: { rule: AutoTopupRule }) {
  return (
    <dl className="facts" aria-label="Auto top-up rule">
      <dt>State</dt>
      <dd><StatusBadge status={rule.state} /></dd>
      <dt>Threshold</dt>
      <dd><Credits amount={rule.threshold} /></dd>
      <dt>Credits per top-up</dt>
      <dd><Credits amount={rule.topupCredits} /></dd>
      <dt>Amount per top-up</dt>
      <dd>{rule.amountPerTopup === null ? 'unpriced' : <MaybeMoney amount={rule.amountPerTopup} currency={rule.currency} />}</dd>
      <dt>Monthly cap</dt>
      <dd>{rule.maxMonthlyAmount === null ? 'none' : <MaybeMoney amount={rule.maxMonthlyAmount} currency={rule.currency} />}</dd>
      <dt>This month</dt>
      <dd><MaybeMoney amount={rule.monthToDateAmount} currency={rule.currency} /></dd>
      <dt>Consecutive failures</dt>
      <dd>{String(rule.consecutiveFailures)}</dd>
      <dt>Retry after</dt>
      <dd>{rule.retryAfter ? <Time iso={rule.retryAfter} /> : 'now'}</dd>
      {rule.disabledReason ? (
        <>
          <dt>Disabled because</dt>
          <dd>{rule.disabledReason === 'CONSECUTIVE_FAILURES' ? 'three consecutive failures' : 'disabled by hand'}</dd>
        </>
      ) : null}
    </dl>
  );
}

const draftOf = (rule: AutoTopupRule | null): AutoTopupDraft => ({
  enabled: rule?.enabled ?? true,
  threshold: rule ? String(rule.threshold) : '',
  topupCredits: rule ? String(rule.topupCredits) : '',
  maxMonthlyAmount: rule?.maxMonthlyAmount === null || !rule ? '' : String(rule.maxMonthlyAmount),
});

function RuleForm({ pool, customerRef, rule }: { pool: Pool; customerRef: string; rule: AutoTopupRule | null }) {
  const [draft, setDraft] = useState(draftOf(rule));
  const save = useSaveAutoTopup(customerRef, pool.id, () => undefined);
  const remove = useDeleteAutoTopup(customerRef, pool.id);
  const { ask, dialog } = useConfirm();
  return (
    <>
      <Form access="billing" label={`Auto top-up rule of ${pool.name}`} submission={save} onSubmit={() => save.mutate(draft)} submit={rule ? 'Save rule' : 'Set rule'} failed="Rule not saved" saved>
        <label className="check">
          <input type="checkbox" checked={draft.enabled} onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })} />
          Enabled
        </label>
        <Field label={`Threshold (${pool.denomination})`} name="threshold">
          <input required inputMode="decimal" value={draft.threshold} onChange={(e) => setDraft({ ...draft, threshold: e.target.value })} />
        </Field>
        <Field label={`Credits per top-up (${pool.denomination})`} name="topupCredits">
          <input required inputMode="decimal" value={draft.topupCredits} onChange={(e) => setDraft({ ...draft, topupCredits: e.target.value })} />
        </Field>
        <Field label="Monthly cap (empty: none)" name="maxMonthlyAmount">
          <input inputMode="decimal" value={draft.maxMonthlyAmount} onChange={(e) => setDraft({ ...draft, maxMonthlyAmount: e.target.value })} />
        </Field>
      </Form>
      {rule ? (
        <ConfirmButton
          ask={ask}
          name={`Remove the auto top-up rule of ${pool.name}`}
          request={{ title: `Remove the auto top-up rule of ${pool.name}?`, body: 'No top-up is recorded any more; one already pending is still charged and granted.', confirm: 'Remove', onConfirm: () => remove.mutate() }}
        >
          Remove rule
        </ConfirmButton>
      ) : null}
      <ErrorNote error={remove.error} title="Rule not removed" />
      {dialog}
    </>
  );
}
