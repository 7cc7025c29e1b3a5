import { PageHeader } from '../../components/ui';
import { Audit } from './audit';
import { Models } from './models';
import { PlanCredits } from './plan-credits';
import { Pools } from './pools';
import { Prices } from './prices';
import { Weights } from './weights';

/**
 * Credits: the credit models, the credits each plan includes, the pools (new pool, grant, deduct), the weight tariff (credits per unit by feature and model) and the
 * price book (price per credit), each with its scheduled rows (a future row can be deleted before
 * it takes effect), and the ledger audit with its result.
 */
export default function CreditsPage() {
  return (
    <section>
      <PageHeader title="Credits" />
      <Models />
      <PlanCredits />
      <Pools />
      <Weights />
      <Prices />
      <Audit />
    </section>
  );
}
