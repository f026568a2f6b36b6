/** The Hub: every package of every Serving ClusterCatalog as a tile, with search, facets, sort and paging. */
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
  Spinner,
  Title,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import { CatalogTile } from '@patternfly/react-catalog-view-extension';
import { getJson, iconUrl, packageHref, type Tile } from './api.ts';
import { EMPTY_QUERY, facetValues, filterTiles, type FilterableTile, type HubQuery } from './filter.ts';

const FACETS: { key: Exclude<keyof HubQuery, 'text' | 'sort'>; label: string; pick: (t: FilterableTile) => string | string[] }[] = [
  { key: 'catalog', label: 'Catalog', pick: (t) => t.catalog },
  { key: 'category', label: 'Category', pick: (t) => t.categories },
  { key: 'provider', label: 'Provider', pick: (t) => t.provider },
  { key: 'capability', label: 'Capability level', pick: (t) => t.capabilities },
  { key: 'infrastructure', label: 'Infrastructure features', pick: (t) => t.infrastructure },
  { key: 'installMode', label: 'Install mode', pick: (t) => t.installModes },
];

/** The Hub page. */
export function HubPage() {
  const [tiles, setTiles] = useState<Tile[] | undefined>();
  const [problems, setProblems] = useState<string[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [q, setQ] = useState<HubQuery>(EMPTY_QUERY);
  const [page, setPage] = useState(1);
  const [perPage, setPerPage] = useState(24);
  useEffect(() => {
    const ac = new AbortController();
    getJson<{ tiles: Tile[]; problems: string[] }>('/api/hub', ac.signal).then(
      (h) => {
        setTiles(h.tiles);
        setProblems(h.problems);
      },
      (e: unknown) => ac.signal.aborted || setError(String((e as Error).message)),
    );
    return () => ac.abort();
  }, []);
  const shown = useMemo(() => filterTiles(tiles ?? [], q), [tiles, q]);
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
          {FACETS.map((f) => (
            <ToolbarItem key={f.key}>
              <FormSelect aria-label={f.label} value={q[f.key]} onChange={(_e, v) => set({ [f.key]: v })}>
                <FormSelectOption value="" label={`${f.label}: any`} />
                {facetValues(tiles ?? [], f.pick).map((v) => (
                  <FormSelectOption key={v} value={v} label={v} />
                ))}
              </FormSelect>
            </ToolbarItem>
          ))}
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
            vendor={t.provider === '' ? `${t.name} · ${t.catalog}` : `provided by ${t.provider} · ${t.catalog}`}
            description={t.description}
            badges={[
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
    </PageSection>
  );
}
