/** The console's browser entry: PatternFly's page frame and a hash router over the Hub, Package, Install, Installed, extension detail, Catalogs, Cluster and Namespace pages. */
import '@patternfly/react-core/dist/styles/base.css';
import '@patternfly/react-catalog-view-extension/dist/css/react-catalog-view-extension.css';
import './console.css';
import { lazy, Suspense, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Masthead, MastheadBrand, MastheadContent, MastheadMain, Nav, NavItem, NavList, Page, Spinner } from '@patternfly/react-core';
import { HubPage } from './hub.tsx';
import { PageBoundary } from './page-boundary.tsx';
import { openEvents, prefetchHub, signOutHref, startSession } from './api.ts';
import { connectChanges, sleep } from './changes.ts';
import { ChangesProvider } from './use-live.tsx';

// The hub is the first page most visits see: it is in main.js; every other page (and what only
// it uses: the install form's API types, the Markdown renderer, the graph) loads when first shown.
const ExtensionPage = lazy(() => import('./extension-page.tsx').then((m) => ({ default: m.ExtensionPage })));
const InstallPage = lazy(() => import('./install-page.tsx').then((m) => ({ default: m.InstallPage })));
const InstalledPage = lazy(() => import('./installed.tsx').then((m) => ({ default: m.InstalledPage })));
const PackagePage = lazy(() => import('./package-page.tsx').then((m) => ({ default: m.PackagePage })));
const CatalogsPage = lazy(() => import('./catalogs.tsx').then((m) => ({ default: m.CatalogsPage })));
const ClusterPage = lazy(() => import('./cluster.tsx').then((m) => ({ default: m.ClusterPage })));
const NamespacesPage = lazy(() => import('./tenant.tsx').then((m) => ({ default: m.NamespacesPage })));

function useHash(): string {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const on = (): void => setHash(window.location.hash);
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function App() {
  const hash = useHash();
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const page = parts[0] ?? '';
  const nav = (
    <Nav variant="horizontal" aria-label="Console sections">
      <NavList>
        <NavItem itemId="hub" isActive={page === '' || page === 'package' || page === 'install'} to="#/">
          OperatorHub
        </NavItem>
        <NavItem itemId="installed" isActive={page === 'installed'} to="#/installed">
          Installed
        </NavItem>
        <NavItem itemId="catalogs" isActive={page === 'catalogs'} to="#/catalogs">
          Catalogs
        </NavItem>
        <NavItem itemId="cluster" isActive={page === 'cluster'} to="#/cluster">
          Cluster
        </NavItem>
        <NavItem itemId="namespaces" isActive={page === 'namespaces'} to="#/namespaces">
          Namespaces
        </NavItem>
      </NavList>
    </Nav>
  );
  const masthead = (
    <Masthead>
      <MastheadMain>
        <MastheadBrand>
          <span className="olmv1-brand">OLM v1</span>
        </MastheadBrand>
      </MastheadMain>
      <MastheadContent>
        {nav}
        {signOutHref() === undefined ? null : (
          <a className="olmv1-sign-out" href={signOutHref()}>
            Sign out
          </a>
        )}
      </MastheadContent>
    </Masthead>
  );
  return (
    <Page masthead={masthead} mainAriaLabel="Console page">
      <PageBoundary key={hash}>
        <Suspense fallback={<Spinner aria-label="Loading the page" />}>
          {page === 'package' ? (
            <PackagePage catalog={parts[1] ?? ''} name={parts[2] ?? ''} />
          ) : page === 'install' ? (
            <InstallPage key={hash} catalog={parts[1] ?? ''} name={parts[2] ?? ''} />
          ) : page === 'installed' && (parts[1] ?? '') !== '' ? (
            <ExtensionPage key={parts[1]} name={parts[1] ?? ''} />
          ) : page === 'installed' ? (
            <InstalledPage />
          ) : page === 'catalogs' ? (
            <CatalogsPage />
          ) : page === 'cluster' ? (
            <ClusterPage />
          ) : page === 'namespaces' ? (
            <NamespacesPage key={parts[1] ?? ''} namespace={parts[1] ?? ''} />
          ) : (
            <HubPage />
          )}
        </Suspense>
      </PageBoundary>
    </Page>
  );
}

/** What a tab without a session shows (its key missing or no longer the console's). */
function NoSession() {
  return (
    <Page mainAriaLabel="Console page">
      <h1>No session: open the URL that olmv1 console printed.</h1>
    </Page>
  );
}

/** This origin's storage of the session key; none when the browser keeps none (the key then lives in this page only). */
const STORED_KEY = 'olmv1-console-session-key';
const storage = (): Storage | undefined => {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
};

const root = document.getElementById('root');
// Before anything renders: the sign-in's key leaves the address bar, and every request carries it.
if (root !== null)
  void startSession({
    hash: window.location.hash,
    dropHash: () => window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}`),
    stored: () => storage()?.getItem(STORED_KEY) ?? null,
    keep: (key) => {
      try {
        storage()?.setItem(STORED_KEY, key);
      } catch {
        // Not kept: this page still holds it.
      }
    },
  })
    .catch(() => false)
    .then((ok) => {
      // One live connection for the page's lifetime: every page's data hook listens to it.
      // The hub's catalogs are read while React renders the page's frame.
      if (ok && /^#?\/?$/.test(window.location.hash)) prefetchHub();
      const changes = ok ? connectChanges((signal) => openEvents(signal), sleep, new AbortController().signal) : undefined;
      createRoot(root).render(
        changes === undefined ? (
          <NoSession />
        ) : (
          <ChangesProvider source={changes}>
            <App />
          </ChangesProvider>
        ),
      );
    });
