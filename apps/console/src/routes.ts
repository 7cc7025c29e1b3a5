/**
 * The console's one route table: every path is written here once. The router (app.tsx, with each
 * route's page from pages/index.ts, keyed by the route's name) and the navigation are both derived
 * from it, and links to a detail page use `paths` (never a path literal).
 *
 * This file is data only (no JSX, no page imported), so the browser tests read it in Node.
 */
import type { OperatorAccess } from './roles.js';

/** A module of the server that can be switched off (GET /public/v1/console); its pages hide then. */
export type ModuleName = 'monetization' | 'build';
export type SectionTitle = 'Monetization' | 'AI spend' | 'Webhooks' | 'Account';
/** Who may open the route: `operator` (signed in, inside the shell), `public` (no sign-in, no shell). */
type Access = 'operator' | 'public';

export type RouteDef = {
  path: string;
  title: string;
  access: Access;
  /** The navigation section listing the route; null: a page reached by a link (a detail page). */
  section: SectionTitle | null;
  module: ModuleName | null;
  /** What a role needs to open the page (its navigation entry is hidden otherwise), and to change things on it: the page's forms follow `change` (roles.ts). */
  open: OperatorAccess;
  change: OperatorAccess;
};

const page =
  (section: SectionTitle | null, module: ModuleName | null, change: OperatorAccess) =>
  (path: string, title: string, needs: Partial<Pick<RouteDef, 'open' | 'change'>> = {}): RouteDef => ({ path, title, access: 'operator', section, module, open: 'read', change, ...needs });
const money = page('Monetization', 'monetization', 'billing');
const spend = page('AI spend', 'build', 'admin');
const detail = page(null, 'monetization', 'billing');
const account = page('Account', null, 'admin');
/** Outbound events (api-contract-events.md): reading them is `read`, changing endpoints or sending is `admin`. */
const webhooks = page('Webhooks', null, 'admin');
/** The catalog, events, payments and agent settings are the admin's (the server's table). */
const admin = { change: 'admin' } as const;

export const ROUTES = {
  login: { path: '/login', title: 'Sign in', access: 'public', section: null, module: null, open: 'read', change: 'read' },
  /** The customer portal: no admin login (it authenticates with the link's token). */
  portal: { path: '/portal', title: 'Your account', access: 'public', section: null, module: null, open: 'read', change: 'read' },
  overview: money('/', 'Overview'),
  features: money('/catalog/features', 'Features', admin),
  plans: money('/catalog/plans', 'Plans', admin),
  customers: money('/customers', 'Customers'),
  events: money('/events', 'Events', admin),
  credits: money('/credits', 'Credits'),
  agent: money('/agent', 'Agent surface', admin),
  payments: money('/payments', 'Payments', admin),
  spendConnections: spend('/spend/connections', 'Connections'),
  spendUsage: spend('/spend/usage', 'Usage'),
  spendUnits: spend('/spend/units', 'Units & rules'),
  spendAllocation: spend('/spend/allocation', 'Allocation'),
  spendBudgets: spend('/spend/budgets', 'Budgets'),
  spendAlerts: spend('/spend/alerts', 'Alerts'),
  spendReports: spend('/spend/reports', 'Reports'),
  spendSettings: spend('/spend/settings', 'Spend settings'),
  webhookEndpoints: webhooks('/webhooks/endpoints', 'Endpoints'),
  webhookDeliveries: webhooks('/webhooks/deliveries', 'Deliveries'),
  webhookEvents: webhooks('/webhooks/events', 'Event log'),
  account: account('/account', 'Account & keys'),
  users: account('/users', 'Users', { open: 'owner', change: 'owner' }),
  plan: detail('/catalog/plans/:planId', 'Plan', admin),
  customer: detail('/customers/:customerId', 'Customer'),
  webhookDelivery: page(null, null, 'admin')('/webhooks/deliveries/:deliveryId', 'Delivery'),
} satisfies Record<string, RouteDef>;

export type RouteName = keyof typeof ROUTES;

/** A route's path with its `:params` filled in (each value URL-encoded). */
function fill(pattern: string, params: Record<string, string>): string {
  return pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** Links to the console's pages: `paths.customer(id)`, `paths.login(query)`. */
export const paths = {
  plan: (planId: string) => fill(ROUTES.plan.path, { planId }),
  customer: (customerId: string) => fill(ROUTES.customer.path, { customerId }),
  login: (query?: URLSearchParams) => (query ? `${ROUTES.login.path}?${query}` : ROUTES.login.path),
  home: ROUTES.overview.path,
  features: ROUTES.features.path,
  plans: ROUTES.plans.path,
  account: ROUTES.account.path,
  spendUnits: ROUTES.spendUnits.path,
  webhookEndpoints: ROUTES.webhookEndpoints.path,
  webhookEvents: ROUTES.webhookEvents.path,
  webhookDelivery: (deliveryId: string) => fill(ROUTES.webhookDelivery.path, { deliveryId }),
  /** The deliveries log, filtered (`endpointId`, `eventId`, `status`, `eventType`). */
  webhookDeliveries: (filter: Record<string, string> = {}) => {
    const query = new URLSearchParams(filter).toString();
    return query ? `${ROUTES.webhookDeliveries.path}?${query}` : ROUTES.webhookDeliveries.path;
  },
};

export type NavEntry = { path: string; label: string; module: ModuleName | null; open: OperatorAccess };
export type NavSection = { title: SectionTitle; entries: NavEntry[] };

const SECTIONS: SectionTitle[] = ['Monetization', 'AI spend', 'Webhooks', 'Account'];

/** The navigation: the routes that name a section, in the table's order. */
export const NAV: NavSection[] = SECTIONS.map((title) => ({
  title,
  entries: Object.values(ROUTES as Record<string, RouteDef>)
    .filter((r) => r.section === title)
    .map((r) => ({ path: r.path, label: r.title, module: r.module, open: r.open })),
}));

/**
 * The navigation without the sections of switched-off modules (all shown until the server says) and
 * without the pages the operator's role cannot open (`can`: roles.ts through useCan).
 */
export function visibleNav(modules: Record<ModuleName, boolean> | undefined, can: (access: OperatorAccess) => boolean = () => true): NavSection[] {
  return NAV.map((section) => ({
    ...section,
    entries: section.entries.filter((e) => (e.module === null || (modules?.[e.module] ?? true)) && can(e.open)),
  })).filter((section) => section.entries.length > 0);
}
