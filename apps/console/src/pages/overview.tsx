import { PageHeader } from '../ui';

export default function OverviewPage() {
  return (
    <section>
      <PageHeader title="Overview" />
      <p className="empty">The overview is being built.</p>
    </section>
  );
}
