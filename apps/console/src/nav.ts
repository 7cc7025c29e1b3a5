/**
 * The console's navigation. Each entry names the module it belongs to: a module switched off on
 * the server (GET /public/v1/console) hides its pages. Entries without `ready` are slots for pages
 * not built yet; they render a placeholder until their page lands.
 */
export type ModuleName = 'monetization' | 'build';

export type NavEntry = { path: string; label: string; module: ModuleName | null; ready: boolean };
export type NavSection = { title: string; entries: NavEntry[] };

export const NAV: NavSection[] = [
  {
    title: 'Monetization',
    entries: [
      { path: '/', label: 'Overview', module: 'monetization', ready: true },
      { path: '/catalog/features', label: 'Features', module: 'monetization', ready: true },
      { path: '/catalog/plans', label: 'Plans', module: 'monetization', ready: true },
      { path: '/customers', label: 'Customers', module: 'monetization', ready: true },
      { path: '/events', label: 'Events', module: 'monetization', ready: true },
      { path: '/credits', label: 'Credits', module: 'monetization', ready: true },
      { path: '/agent', label: 'Agent surface', module: 'monetization', ready: true },
      { path: '/payments', label: 'Payments', module: 'monetization', ready: true },
    ],
  },
  {
    title: 'AI spend',
    entries: [
      { path: '/spend/connections', label: 'Connections', module: 'build', ready: true },
      { path: '/spend/usage', label: 'Usage', module: 'build', ready: true },
      { path: '/spend/allocation', label: 'Allocation', module: 'build', ready: true },
      { path: '/spend/budgets', label: 'Budgets', module: 'build', ready: true },
      { path: '/spend/alerts', label: 'Alerts', module: 'build', ready: true },
      { path: '/spend/reports', label: 'Reports', module: 'build', ready: true },
      { path: '/spend/settings', label: 'Spend settings', module: 'build', ready: true },
    ],
  },
  { title: 'Account', entries: [{ path: '/account', label: 'Account & keys', module: null, ready: true }] },
];

export function visibleNav(modules: Record<ModuleName, boolean> | undefined): NavSection[] {
  return NAV.map((section) => ({
    ...section,
    entries: section.entries.filter((e) => e.module === null || (modules?.[e.module] ?? true)),
  })).filter((section) => section.entries.length > 0);
}
