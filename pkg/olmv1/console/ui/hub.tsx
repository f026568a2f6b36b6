/**
 * The Hub: every package of every Serving ClusterCatalog as a tile with its source badge, with
 * search, OperatorHub's filter panel (checkboxes with counts, filter.ts), sort and paging.
 */
import { useEffect, useMemo, useState } from 'react';
import {
  Alert,
  EmptyState,
  FormSelect,
  FormSelectOption,
  Gallery,
  Label,
  PageSection,
  Pagination,
  SearchInput,
  Sidebar,
  SidebarContent,
  SidebarPanel,
  Spinner,
  Title,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import { CatalogTile, FilterSidePanel, FilterSidePanelCategory, FilterSidePanelCategoryItem } from '@patternfly/react-catalog-view-extension';
import { hubJson, iconUrl, packageHref, type CatalogBadge, type Tile } from './api.ts';
import { EMPTY_QUERY, FACETS, facetCounts, filterTiles, toggle, type FacetKey, type HubQuery } from './filter.ts';
import { SourceBadge } from './source-badge.tsx';

type HubTileView = Tile & { catalogName: string; sourceType: string };

/** The Hub page. */
export function HubPage() {
  const [tiles, setTiles] = useState<HubTileView[] | undefined>();
  const [badges, setBadges] = useState<Record<string, CatalogBadge>>({});
  const [showAll, setShowAll] = useState<Partial<Record<FacetKey, boolean>>>({});
  const [problems, setProblems] = useState<string[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [q, setQ] = useState<HubQuery>(EMPTY_QUERY);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(24);
  useEffect(() => {
    const ac = new AbortController();
    hubJson<{ tiles: Tile[]; problems: string[]; badges?: Record<string, CatalogBadge> }>(ac.signal).then(
      (h) => {
        const b = h.badges ?? {};
        setBadges(b);
        setTiles(
          h.tiles.map((t) => ({ ...t, catalogName: b[t.catalog]?.displayName ?? t.catalog, sourceType: b[t.catalog]?.sourceType ?? 'Custom' })),
        );
        setProblems(h.problems);
      },
      (e: unknown) => ac.signal.aborted || setError(String((e as Error).message)),
    );
    return () => ac.abort();
  }, []);
  const shown = useMemo(() => filterTiles(tiles ?? [], q), [tiles, q]);
  const counts = useMemo(() => facetCounts(tiles ?? [], q), [tiles, q]);
  const set = (patch: Partial<HubQuery>): void => {
    setQ({ ...q, ...patch });
    setPage(1);
  };
  return (
    <PageSection aria-label="OperatorHub">
      <Title headingLevel="h1">OperatorHub</Title>
      {error !== undefined && <Alert variant="danger" isInline title={`Could not read the catalogs: ${error}`} />}
      {problems.map((p) => (
        <Alert key={p} variant="warning" isInline isPlain title={p} />
      ))}
      <Toolbar className="olmv1-hub-filters">
        <ToolbarContent>
          <ToolbarItem>
            <SearchInput
              aria-label="Filter by keyword"
              placeholder="Filter by keyword..."
              value={q.text}
              onChange={(_e, v) => set({ text: v })}
              onClear={() => set({ text: '' })}
            />
          </ToolbarItem>
          <ToolbarItem>
            <FormSelect aria-label="Sort by" value={q.sort} onChange={(_e, v) => set({ sort: v as HubQuery['sort'] })}>
              <FormSelectOption value="name" label="Sort: name" />
              <FormSelectOption value="provider" label="Sort: provider" />
              <FormSelectOption value="catalog" label="Sort: catalog" />
            </FormSelect>
          </ToolbarItem>
          <ToolbarItem variant="pagination">
            <Pagination
              itemCount={shown.length}
              perPage={perPage}
              page={page}
              isCompact
              onSetPage={(_e, p) => setPage(p)}
              onPerPageSelect={(_e, n) => {
                setPerPage(n);
                setPage(1);
              }}
              titles={{ paginationAriaLabel: 'Hub pages' }}
            />
          </ToolbarItem>
        </ToolbarContent>
      </Toolbar>
      <p aria-live="polite" className="olmv1-count">
        {tiles === undefined ? '' : `${shown.length} of ${tiles.length} packages`}
      </p>
      <Sidebar hasGutter>
        <SidebarPanel className="olmv1-hub-panel">
          <FilterSidePanel aria-label="Filters">
            {FACETS.filter((f) => counts[f.key].length > 0).map((f) => (
              <FilterSidePanelCategory
                key={f.key}
                title={f.label}
                data-facet={f.key}
                showAll={showAll[f.key] === true}
                onShowAllToggle={() => setShowAll({ ...showAll, [f.key]: showAll[f.key] !== true })}
              >
                {counts[f.key].map(({ value, count }) => {
                  const checked = (q.selected[f.key] ?? []).includes(value);
                  return (
                    <FilterSidePanelCategoryItem
                      key={value}
                      data-facet={f.key}
                      data-value={value}
                      count={count}
                      checked={checked}
                      onClick={() => set(toggle(q, f.key, value, !checked))}
                    >
                      {value}
                    </FilterSidePanelCategoryItem>
                  );
                })}
              </FilterSidePanelCategory>
            ))}
          </FilterSidePanel>
        </SidebarPanel>
        <SidebarContent>
          {tiles === undefined && error === undefined && <Spinner aria-label="Loading the catalogs" />}
          {tiles !== undefined && shown.length === 0 && <EmptyState titleText="No package matches" headingLevel="h2" />}
          <Gallery hasGutter minWidths={{ default: '260px' }}>
            {shown.slice((page - 1) * perPage, page * perPage).map((t) => (
              <CatalogTile
                key={`${t.catalog}/${t.name}`}
                id={`tile-${t.catalog}-${t.name}`.replace(/[^A-Za-z0-9_-]/g, '_')}
                featured={false}
                data-package={t.name}
                href={packageHref(t)}
                onClick={() => {
                  window.location.hash = packageHref(t);
                }}
                {...(t.hasIcon ? { iconImg: iconUrl(t), iconAlt: '' } : {})}
                title={t.displayName}
                vendor={t.provider === '' ? `${t.name} · ${t.catalogName}` : `provided by ${t.provider} · ${t.catalogName}`}
                description={t.description}
                badges={[
                  <SourceBadge key="s" badge={badges[t.catalog]} compact />,
                  ...(t.installed
                    ? [
                        <Label key="i" color="green" isCompact>
                          Installed
                        </Label>,
                      ]
                    : []),
                  ...(t.deprecated !== undefined
                    ? [
                        <Label key="d" color="orange" isCompact>
                          Deprecated
                        </Label>,
                      ]
                    : []),
                ]}
              />
            ))}
          </Gallery>
        </SidebarContent>
      </Sidebar>
    </PageSection>
  );
}
