import { lazy, Suspense, type ReactNode } from 'react';
import { NavLink, Navigate, Route, Routes, useLocation } from 'react-router';
import { RequireAuth, useAuth } from './auth';
import { useConsoleInfo } from './console-info';
import { NAV, visibleNav, type ModuleName } from './nav';
import { LoginPage } from './pages/login';
import { ThemeSelect } from './theme';
import { Loading } from './ui';

const AccountPage = lazy(() => import('./pages/account'));
const FeaturesPage = lazy(() => import('./pages/features'));
const OverviewPage = lazy(() => import('./pages/overview'));
const EventsPage = lazy(() => import('./pages/events'));
const CreditsPage = lazy(() => import('./pages/credits'));
const AgentPage = lazy(() => import('./pages/agent'));
const PaymentsPage = lazy(() => import('./pages/payments'));
const PlansPage = lazy(() => import('./pages/plans'));
const PlanPage = lazy(() => import('./pages/plan'));
const SpendConnectionsPage = lazy(() => import('./pages/spend/connections'));
const SpendUsagePage = lazy(() => import('./pages/spend/usage'));
const SpendAllocationPage = lazy(() => import('./pages/spend/allocation'));
const SpendBudgetsPage = lazy(() => import('./pages/spend/budgets'));
const SpendAlertsPage = lazy(() => import('./pages/spend/alerts'));
const SpendSettingsPage = lazy(() => import('./pages/spend/settings'));
const SpendReportsPage = lazy(() => import('./pages/spend/reports'));
const CustomersPage = lazy(() => import('./pages/customers'));
const CustomerPage = lazy(() => import('./pages/customer'));
/** The customer portal: its own route, no admin login (it authenticates with the link's token). */
const PortalPage = lazy(() => import('./pages/portal'));

/** Pages built so far, by path; every other navigation entry renders its placeholder. */
const PAGES: Record<string, ReactNode> = {
  '/': <OverviewPage />,
  '/catalog/features': <FeaturesPage />,
  '/catalog/plans': <PlansPage />,
  '/customers': <CustomersPage />,
  '/account': <AccountPage />,
  '/events': <EventsPage />,
  '/credits': <CreditsPage />,
  '/agent': <AgentPage />,
  '/payments': <PaymentsPage />,
  '/spend/connections': <SpendConnectionsPage />,
  '/spend/usage': <SpendUsagePage />,
  '/spend/allocation': <SpendAllocationPage />,
  '/spend/budgets': <SpendBudgetsPage />,
  '/spend/alerts': <SpendAlertsPage />,
  '/spend/reports': <SpendReportsPage />,
  '/spend/settings': <SpendSettingsPage />,
};

export function App() {
  return (
    <Routes>
      <Route path="/login" element={<LoginPage />} />
      <Route
        path="/portal"
        element={
          <Suspense fallback={<Loading what="your account" />}>
            <PortalPage />
          </Suspense>
        }
      />
      <Route
        path="*"
        element={
          <RequireAuth>
            <Shell />
          </RequireAuth>
        }
      />
    </Routes>
  );
}

function Shell() {
  const { session, signOut } = useAuth();
  const info = useConsoleInfo();
  const modules = info.data?.modules;
  const sections = visibleNav(modules);
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <nav className="sidebar" aria-label="Main">
        <div className="brand">Tally</div>
        {sections.map((section) => (
          <div key={section.title} className="nav-section">
            <h2>{section.title}</h2>
            <ul>
              {section.entries.map((entry) => (
                <li key={entry.path}>
                  <NavLink to={entry.path} end={entry.path === '/'}>
                    {entry.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </div>
        ))}
        <div className="signed-in">
          <ThemeSelect />
          <span>Signed in as {session?.username}</span>
          <button type="button" className="secondary" onClick={() => signOut('signed-out')}>
            Sign out
          </button>
        </div>
      </nav>
      <main id="main" className="content">
        <Suspense fallback={<Loading what="page" />}>
          <PageRoutes modules={modules} />
        </Suspense>
      </main>
    </div>
  );
}

function PageRoutes({ modules }: { modules: Record<ModuleName, boolean> | undefined }) {
  const location = useLocation();
  const entries = NAV.flatMap((s) => s.entries);
  const firstVisible = visibleNav(modules)[0]?.entries[0]?.path ?? '/account';
  return (
    <Routes>
      {entries.map((entry) => {
        const off = entry.module !== null && modules !== undefined && !modules[entry.module];
        const element = off ? (
          entry.path === '/' ? (
            <Navigate to={firstVisible} replace />
          ) : (
            <ModuleOff module={entry.module!} />
          )
        ) : (
          (PAGES[entry.path] ?? <Placeholder label={entry.label} />)
        );
        return <Route key={entry.path} path={entry.path} element={element} />;
      })}
      {Object.entries(DETAIL_PAGES).map(([path, element]) => (
        <Route key={path} path={path} element={element} />
      ))}
      <Route path="*" element={<NotFound path={location.pathname} />} />
    </Routes>
  );
}

/** Pages under a navigation entry (a plan, a customer). */
const DETAIL_PAGES: Record<string, ReactNode> = {
  '/catalog/plans/:planId': <PlanPage />,
  '/customers/:customerId': <CustomerPage />,
};

function Placeholder({ label }: { label: string }) {
  return (
    <section>
      <h1>{label}</h1>
      <p className="empty">This page is not built yet.</p>
    </section>
  );
}

function ModuleOff({ module }: { module: ModuleName }) {
  return (
    <section>
      <h1>Module switched off</h1>
      <p className="empty">
        This install runs with the {module === 'build' ? 'build side (AI spend)' : 'monetization'} module switched off.
      </p>
    </section>
  );
}

function NotFound({ path }: { path: string }) {
  return (
    <section>
      <h1>Not found</h1>
      <p className="empty">
        No console page at <code>{path}</code>.
      </p>
    </section>
  );
}
