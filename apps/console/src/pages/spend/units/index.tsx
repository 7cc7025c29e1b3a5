import { PageHeader } from '../../../components/ui';
import { Rules } from './rules';
import { UnitForm } from './unit-form';
import { UnitTree } from './unit-tree';

/**
 * Spend units and attribution rules: the unit tree (teams, projects, people; create, edit, delete),
 * and the rules that attribute a vendor's workspace, API key or actor to a unit. Allocation and
 * Budgets read what is made here.
 */
export default function SpendUnitsPage() {
  return (
    <section>
      <PageHeader title="Units & rules" />
      <h2>Units</h2>
      <UnitTree />
      <h3>New unit</h3>
      <UnitForm />
      <Rules />
    </section>
  );
}
