/**
 * Each route's page, by the route's name in routes.ts: a lazy chunk (React.lazy), except the login
 * page, which is in the entry chunk so the first paint needs no second request. `satisfies` makes
 * a route without a page (or a page without a route) a type error.
 */
import type { ComponentType } from 'react';
import type { RouteName } from '../routes';

type Loader = () => Promise<{ default: ComponentType }>;

export const PAGES = {
  portal: () => import('./portal'),
  overview: () => import('./overview'),
  features: () => import('./features'),
  plans: () => import('./plans'),
  customers: () => import('./customers'),
  events: () => import('./events'),
  credits: () => import('./credits'),
  agent: () => import('./agent'),
  payments: () => import('./payments'),
  spendConnections: () => import('./spend/connections'),
  spendUsage: () => import('./spend/usage'),
  spendUnits: () => import('./spend/units'),
  spendAllocation: () => import('./spend/allocation'),
  spendBudgets: () => import('./spend/budgets'),
  spendAlerts: () => import('./spend/alerts'),
  spendReports: () => import('./spend/reports'),
  spendSettings: () => import('./spend/settings'),
  account: () => import('./account'),
  users: () => import('./users'),
  plan: () => import('./plan'),
  customer: () => import('./customer'),
  webhookEndpoints: () => import('./webhooks/endpoints'),
  webhookDeliveries: () => import('./webhooks/deliveries'),
  webhookEvents: () => import('./webhooks/events'),
  webhookDelivery: () => import('./webhooks/delivery'),
} satisfies Record<Exclude<RouteName, 'login'>, Loader>;
