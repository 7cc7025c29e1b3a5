import type { AppContext } from '../../../platform/context.js';
import { notFound } from '../../../platform/errors/app-error.js';
import { dec } from '../../../platform/money.js';
import { listActivePlans } from '../../catalog/index.js';
import { listPublishedCatalogSettings } from '../../settings/index.js';
import { signupPlanOf } from '../pricing/domain.js';
import { NO_CATALOG_MESSAGE } from '../pricing/service.js';
import type { PublishedCatalog } from './domain.js';

/**
 * The catalogs the discovery documents list, in ascending slug order: those whose pricing document
 * answers (slug, catalog switched on, at least one ACTIVE plan: pricing.json's own rule), each with
 * its signup when the signup route would sign an agent up (enabled, default plan ACTIVE and free:
 * `signupPlanOf`, the rule pricing.json's trial uses). So every link a document lists answers.
 * None published: the same 404 as pricing.json's (fail closed: a closed agent surface does not
 * announce itself).
 */
export async function getPublishedCatalogs(ctx: AppContext): Promise<PublishedCatalog[]> {
  const published = await listPublishedCatalogSettings(ctx.db);
  const catalogs = await Promise.all(
    published.map(async (settings) => {
      const plans = (await listActivePlans(ctx.db, settings.accountId)).map((p) => ({ id: p.id, priceAmount: dec(p.price_amount ?? '0') }));
      if (plans.length === 0) return null;
      return { slug: settings.slug!, signup: signupPlanOf({ ...settings, plans }) !== null };
    }),
  );
  const listed = catalogs.filter((c): c is PublishedCatalog => c !== null);
  if (listed.length === 0) throw notFound(NO_CATALOG_MESSAGE);
  return listed;
}
