import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { NavLink, Navigate, Route, Routes, useLocation } from 'react-router';
import { RequireAuth, useAuth } from './auth';
import { EmptyState, Loading } from './components/ui';
import { useConsoleInfo } from './queries/account';
import { PAGES } from './pages';
import { LoginPage } from './pages/login';
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
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <nav className="sidebar" aria-label="Main">
        <div className="brand">Tally</div>
        {visibleNav(modules).map((section) => (
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
  const firstVisible = visibleNav(modules)[0]?.entries[0]?.path ?? paths.account;
  const elementOf = ({ path, module, Page }: Routed): ReactNode => {
    const off = module !== null && modules !== undefined && !modules[module];
    if (!off) return <Page />;
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

