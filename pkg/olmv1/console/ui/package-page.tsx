/** The Package page: safe Markdown description, channels and versions with their upgrade graphs, APIs, dependencies, links, maintainers. */
import { useEffect, useState } from 'react';
import Markdown from 'react-markdown';
import {
  Alert,
  Breadcrumb,
  BreadcrumbItem,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  Label,
  PageSection,
  Spinner,
  Title,
} from '@patternfly/react-core';
import { getJson, iconUrl, installHref, type Detail } from './api.ts';
import { ChannelGraph } from './graph.tsx';
import { Permissions } from './permissions.tsx';
import { SourceBadge } from './source-badge.tsx';

/** Only absolute http(s) URLs survive; anything else (javascript:, data:, relative) becomes no link. */
export function safeHref(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** The Package page. */
export function PackagePage({ catalog, name }: { catalog: string; name: string }) {
  const [d, setD] = useState<Detail | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    const ac = new AbortController();
    getJson<Detail>(`/api/packages/${encodeURIComponent(catalog)}/${encodeURIComponent(name)}`, ac.signal).then(setD, (e: unknown) =>
      ac.signal.aborted ? undefined : setError(String((e as Error).message)),
    );
    return () => ac.abort();
  }, [catalog, name]);
  const crumbs = (
    <Breadcrumb>
      <BreadcrumbItem to="#/">OperatorHub</BreadcrumbItem>
      <BreadcrumbItem isActive>{d?.displayName ?? name}</BreadcrumbItem>
    </Breadcrumb>
  );
  if (error !== undefined)
    return (
      <PageSection aria-label="Package">
        {crumbs}
        <Alert variant="danger" isInline title={error} />
      </PageSection>
    );
  if (d === undefined)
    return (
      <PageSection aria-label="Package">
        {crumbs}
        <Spinner aria-label="Loading the package" />
      </PageSection>
    );
  return (
    <PageSection aria-label="Package" className="olmv1-package">
      {crumbs}
      <Title headingLevel="h1">
        {d.hasIcon && <img className="olmv1-tile-icon" src={iconUrl(d)} alt="" />} {d.displayName} <SourceBadge badge={d.badge} />{' '}
        {d.installed && <Label color="green">Installed</Label>} {d.deprecated !== undefined && <Label color="orange">Deprecated</Label>}
      </Title>
      {d.deprecated !== undefined && <Alert variant="warning" isInline title={`Deprecated: ${d.deprecated}`} />}
      <p className="olmv1-actions">
        <a className="pf-v6-c-button pf-m-primary" href={installHref(d)}>
          Install…
        </a>
      </p>
      <DescriptionList isHorizontal isCompact>
        {(
          [
            ['Package', d.name],
            ['Catalog', d.badge === undefined || d.badge.displayName === d.catalog ? d.catalog : `${d.badge.displayName} (${d.catalog})`],
            ['Source', d.badge?.sourceType ?? 'Custom'],
            ['Provider', d.provider || '-'],
            ['Support', d.support || '-'],
            ['Latest version', d.version || '-'],
            ['Default channel', d.defaultChannel],
            ['Capability level', d.capabilities || '-'],
            ['Categories', d.categories.join(', ') || '-'],
            ['Install modes', d.installModes.join(', ') || '-'],
            ['Infrastructure features', d.infrastructure.join(', ') || '-'],
            ['Architectures', d.arch.join(', ')],
            ['Operating systems', d.os.join(', ')],
          ] as const
        ).map(([k, v]) => (
          <DescriptionListGroup key={k}>
            <DescriptionListTerm>{k}</DescriptionListTerm>
            <DescriptionListDescription>{v}</DescriptionListDescription>
          </DescriptionListGroup>
        ))}
      </DescriptionList>
      <Title headingLevel="h2">Description</Title>
      <div className="olmv1-markdown">
        <Markdown
          skipHtml
          urlTransform={(url) => safeHref(url) ?? ''}
          components={{
            img: () => null,
            // A link whose URL was dropped stays text; the others open apart, without referrer.
            a: ({ href, children }) =>
              href === undefined || href === '' ? (
                <span>{children}</span>
              ) : (
                <a href={href} target="_blank" rel="noopener noreferrer">
                  {children}
                </a>
              ),
          }}
        >
          {d.longDescription}
        </Markdown>
      </div>
      <Title headingLevel="h2">Channels and upgrade graph</Title>
      <p>Arrows point from a bundle to the one that upgrades from it: solid replaces, dashed skips, dotted skipRange.</p>
      {d.channels.map((c, i) => (
        <section key={c.name} aria-label={`Channel ${c.name}`}>
          <Title headingLevel="h3">
            {c.name} {c.name === d.defaultChannel && <Label isCompact>default</Label>}{' '}
            {c.deprecated !== undefined && (
              <Label color="orange" isCompact>
                deprecated
              </Label>
            )}
          </Title>
          <p>
            Versions: {c.entries.map((e) => e.version || e.name).join(', ')} (head {c.head})
          </p>
          <ChannelGraph channel={c} index={i} />
        </section>
      ))}
      <Title headingLevel="h2">Provided APIs</Title>
      <ul>{d.providedApis.length === 0 ? <li>none</li> : d.providedApis.map((a) => <li key={a}>{a}</li>)}</ul>
      <Title headingLevel="h2">Required dependencies</Title>
      <ul>{d.required.length === 0 ? <li>none</li> : d.required.map((a) => <li key={a}>{a}</li>)}</ul>
      <Title headingLevel="h2">Links</Title>
      <ul>
        {d.links.length === 0 ? (
          <li>none</li>
        ) : (
          d.links.map((l) => {
            const href = safeHref(l.url);
            return (
              <li key={l.url + l.name}>
                {href === undefined ? (
                  l.name
                ) : (
                  <a href={href} target="_blank" rel="noopener noreferrer">
                    {l.name}
                  </a>
                )}
              </li>
            );
          })
        )}
      </ul>
      <Permissions catalog={catalog} name={name} />
      <Title headingLevel="h2">Maintainers</Title>
      <ul>
        {d.maintainers.length === 0 ? (
          <li>none</li>
        ) : (
          d.maintainers.map((m) => <li key={m.name + m.email}>{m.email === '' ? m.name : `${m.name} <${m.email}>`}</li>)
        )}
      </ul>
    </PageSection>
  );
}
