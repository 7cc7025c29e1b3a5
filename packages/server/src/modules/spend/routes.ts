import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../platform/context.js';
import { alertRoutes } from './alerts/routes.js';
import { allocationRoutes } from './allocation/routes.js';
import { budgetRoutes } from './budgets/routes.js';
import { connectionRoutes } from './connections/routes.js';
import { deliveryRoutes } from './deliveries/routes.js';
import { digestRoutes } from './digest/routes.js';
import { invoiceRoutes } from './invoices/routes.js';
import { marginRoutes } from './margin/routes.js';
import { outcomeSourceRoutes } from './outcomes/sources/routes.js';
import { outcomeClientRoutes, outcomeRoutes } from './outcomes/routes.js';
import { priceRoutes } from './prices/routes.js';
import { moreReportRoutes } from './reports/more-routes.js';
import { reportRoutes } from './reports/routes.js';
import { spendSettingsRoutes } from './settings/routes.js';
import { unitRoutes } from './units/routes.js';

/** Every route of the spend module (Admin API, JWT, /api/v1/spend/**; contract §7) and POST /api/v1/client/outcomes (tenant key). */
export function spendRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const plugins = [
      connectionRoutes,
      spendSettingsRoutes,
      reportRoutes,
      priceRoutes,
      invoiceRoutes,
      unitRoutes,
      outcomeRoutes,
      outcomeClientRoutes,
      deliveryRoutes,
      allocationRoutes,
      marginRoutes,
      budgetRoutes,
      alertRoutes,
      digestRoutes,
      outcomeSourceRoutes,
      moreReportRoutes,
    ];
    for (const routes of plugins) await app.register(routes(ctx));
  };
}
