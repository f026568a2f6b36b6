/** A catalog's source badge, and the acknowledgement an install from a community catalog needs (issue 71; decision 0148). */
import { Alert, Checkbox, Label } from '@patternfly/react-core';
import type { CatalogBadge } from './api.ts';

const COLORS: Record<string, 'red' | 'blue' | 'orange' | 'purple' | 'grey'> = {
  'Red Hat': 'red',
  Certified: 'blue',
  Community: 'orange',
  Marketplace: 'purple',
};

/** The catalog's source type as a compact label (its text, never HTML). */
export function SourceBadge({ badge, compact = false }: { badge: CatalogBadge | undefined; compact?: boolean }) {
  const type = badge?.sourceType ?? 'Custom';
  return (
    <Label color={COLORS[type] ?? 'grey'} isCompact={compact} data-source-type={type}>
      {type}
    </Label>
  );
}

/** Why Install waits, when the catalog needs an acknowledgement not yet given; undefined otherwise. */
export function acknowledgementMissing(badge: CatalogBadge | undefined, acknowledged: boolean): string | undefined {
  return badge?.needsAcknowledgement === true && !acknowledged
    ? `Install is available once you acknowledge that ${badge.displayName} is a community catalog.`
    : undefined;
}

/** OperatorHub's community warning: shown for a catalog marked Community; Install waits for the checkbox. */
export function CommunityWarning({
  badge,
  acknowledged,
  onChange,
}: {
  badge: CatalogBadge | undefined;
  acknowledged: boolean;
  onChange: (v: boolean) => void;
}) {
  if (badge?.needsAcknowledgement !== true) return null;
  return (
    <Alert variant="warning" isInline title="Community content" data-community-warning="">
      <p>
        The catalog {badge.displayName} is marked by the cluster&apos;s administrators as community content: its packages are not vetted or verified,
        their stability is unknown, and no support is offered for them. Install it only if you accept that.
      </p>
      <Checkbox
        id="community-acknowledged"
        label="I understand that this package comes from a community catalog and is not supported"
        isChecked={acknowledged}
        onChange={(_e, v) => onChange(v)}
      />
    </Alert>
  );
}
