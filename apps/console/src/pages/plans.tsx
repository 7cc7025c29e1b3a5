import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, unwrap } from '../api';
import { formatMoney } from '../format';
import { Empty, ErrorNote, PageHeader, QueryView, StatusBadge, Time } from '../ui';

/** Plans of every status; a new plan starts DRAFT and opens its page. */
export default function PlansPage() {
  const plans = useQuery({ queryKey: ['plans'], queryFn: () => unwrap(api.GET('/api/v1/monetization/plans')) });
  return (
    <section>
      <PageHeader title="Plans" />
      <NewPlanForm />
      <QueryView query={plans} what="plans">
        {(list) =>
          list.length === 0 ? (
            <Empty>No plans yet: create the first one above.</Empty>
          ) : (
            <table aria-label="Plans">
              <thead>
                <tr>
                  <th scope="col">Plan</th>
                  <th scope="col">Key</th>
                  <th scope="col" className="num">
                    Price
                  </th>
                  <th scope="col">Interval</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.map((p) => (
                  <tr key={p.id}>
                    <td>
                      <Link to={`/catalog/plans/${p.id}`}>{p.name ?? p.key}</Link>
                    </td>
                    <td>
                      <code>{p.key}</code>
                    </td>
                    <td className="num">{p.priceAmount === null ? '—' : formatMoney(p.priceAmount, p.currency)}</td>
                    <td>{p.intervalMonths ? `${p.intervalMonths} mo · ${p.billingTiming === 'IN_ADVANCE' ? 'in advance' : 'in arrears'}` : '—'}</td>
                    <td>
                      <StatusBadge status={p.status} />
                    </td>
                    <td>
                      <Time iso={p.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </section>
  );
}

function NewPlanForm() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [form, setForm] = useState({ key: '', name: '', description: '', priceAmount: '', intervalMonths: '1', billingTiming: 'IN_ADVANCE' });
  const set = (field: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [field]: e.target.value });
  const create = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/monetization/plans', {
          body: {
            key: form.key,
            ...(form.name ? { name: form.name } : {}),
            ...(form.description ? { description: form.description } : {}),
            // The amount goes as typed, a decimal string (the API accepts one): never through a float.
            ...(form.priceAmount ? { priceAmount: form.priceAmount as unknown as number } : {}),
            ...(form.intervalMonths ? { intervalMonths: Number(form.intervalMonths) } : {}),
            billingTiming: form.billingTiming as 'IN_ADVANCE' | 'IN_ARREARS',
          },
        }),
      ),
    onSuccess: (plan) => {
      void queryClient.invalidateQueries({ queryKey: ['plans'] });
      navigate(`/catalog/plans/${plan.id}`);
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }
  return (
    <form className="inline-form" onSubmit={submit} aria-label="New plan">
      <label>
        Key
        <input name="key" required value={form.key} onChange={set('key')} />
      </label>
      <label>
        Name
        <input name="name" value={form.name} onChange={set('name')} />
      </label>
      <label>
        Description
        <input name="description" value={form.description} onChange={set('description')} />
      </label>
      <label>
        Price per period
        <input name="priceAmount" inputMode="decimal" value={form.priceAmount} onChange={set('priceAmount')} />
      </label>
      <label>
        Interval (months)
        <input name="intervalMonths" inputMode="numeric" value={form.intervalMonths} onChange={set('intervalMonths')} />
      </label>
      <label>
        Billing
        <select name="billingTiming" value={form.billingTiming} onChange={set('billingTiming')}>
          <option value="IN_ADVANCE">In advance</option>
          <option value="IN_ARREARS">In arrears</option>
        </select>
      </label>
      <button type="submit" disabled={create.isPending}>
        Create plan
      </button>
      <ErrorNote error={create.error} title="Plan not created" />
    </form>
  );
}
