import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { NavLink, Navigate, Route, Routes, useLocation } from 'react-router';
import { ChangeAccess, RequireAuth, useAuth } from './auth';
import { EmptyState, Loading } from './components/ui';
import { useConsoleInfo } from './queries/account';
import { PAGES } from './pages';
import { LoginPage } from './pages/login';
import { neededRoles, roleAllows, type OperatorAccess, type OperatorRole } from './roles';
import { paths, ROUTES, visibleNav, type ModuleName, type RouteDef, type RouteName } from './routes';
import { ThemeSelect } from './theme';

type Routed = RouteDef & { Page: ComponentType };

/** Every route of the table with its page: the lazy chunk, or the login page already loaded. */
const ROUTED: Routed[] = (Object.entries(ROUTES) as [RouteName, RouteDef][]).map(([name, r]) => ({ ...r, Page: name === 'login' ? LoginPage : lazy(PAGES[name]) }));
const PUBLIC = ROUTED.filter((r) => r.access === 'public');
const OPERATOR = ROUTED.filter((r) => r.access === 'operator');

export function App() {
  return (
    <Routes>
      {PUBLIC.map(({ path, title, Page }) => (
        <Route
          key={path}
          path={path}
          element={
            <Suspense fallback={<Loading what={title.toLowerCase()} />}>
              <Page />
            </Suspense>
          }
        />
      ))}
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
  const modules = useConsoleInfo().data?.modules;
  const role = session?.role ?? 'VIEWER';
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <nav className="sidebar" aria-label="Main">
        <div className="brand">Tally</div>
        {visibleNav(modules, (access) => roleAllows(role, access)).map((section) => (
          <div key={section.title} className="nav-section">
            <h2>{section.title}</h2>
            <ul>
              {section.entries.map((entry) => (
                <li key={entry.path}>
                  <NavLink to={entry.path} end={entry.path === paths.home}>
                    {entry.label}
                  </NavLink>
                </li>
              ))}
            </ul>
          </div>
        ))}
        <div className="signed-in">
          <ThemeSelect />
          <span data-testid="signed-in">
            Signed in as <strong>{session?.username}</strong> <span className="badge">{role}</span>
          </span>
          <button type="button" className="secondary" onClick={() => signOut('signed-out')}>
            Sign out
          </button>
        </div>
      </nav>
      <main id="main" className="content">
        <Suspense fallback={<Loading what="page" />}>
          <PageRoutes modules={modules} role={role} />
        </Suspense>
      </main>
    </div>
  );
}

function PageRoutes({ modules, role }: { modules: Record<ModuleName, boolean> | undefined; role: OperatorRole }) {
  const location = useLocation();
  const firstVisible = visibleNav(modules)[0]?.entries[0]?.path ?? paths.account;
  const elementOf = ({ path, module, open, change, Page }: Routed): ReactNode => {
    const off = module !== null && modules !== undefined && !modules[module];
    if (!roleAllows(role, open)) return <NotAllowed open={open} />;
    // The page's forms follow what changing things on it needs (useCan without an argument).
    if (!off)
      return (
        <ChangeAccess value={change}>
          <Page />
        </ChangeAccess>
      );
    // The home page of a switched-off module sends the operator to the first page left.
    return path === paths.home ? <Navigate to={firstVisible} replace /> : <ModuleOff module={module} />;
  };
  return (
    <Routes>
      {OPERATOR.map((route) => (
        <Route key={route.path} path={route.path} element={elementOf(route)} />
      ))}
      <Route path="*" element={<NotFound path={location.pathname} />} />
    </Routes>
  );
}

function ModuleOff({ module }: { module: ModuleName }) {
  return (
    <section>
      <h1>Module switched off</h1>
      <EmptyState>This install runs with the {module === 'build' ? 'build side (AI spend)' : 'monetization'} module switched off.</EmptyState>
    </section>
  );
}

function NotAllowed({ open }: { open: OperatorAccess }) {
  return (
    <section>
      <h1>Not for your role</h1>
      <EmptyState next={{ label: 'Back to the overview', to: paths.home }}>{neededRoles(open)} to open this page.</EmptyState>
    </section>
  );
}

function NotFound({ path }: { path: string }) {
  return (
    <section>
      <h1>Not found</h1>
      <EmptyState>
        No console page at <code>{path}</code>.
      </EmptyState>
    </section>
  );
}

