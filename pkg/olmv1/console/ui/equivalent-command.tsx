/**
 * The CLI command a button does the same as, behind an "Equivalent command" disclosure (issue
 * 71, "Readable"): a hint for scripting, not an instruction beside the button.
 */
import { useState } from 'react';
import { ExpandableSection } from '@patternfly/react-core';

/** A closed "Equivalent command" disclosure showing `command`. */
export function EquivalentCommand({ command }: { command: string }) {
  const [open, setOpen] = useState(false);
  return (
    <ExpandableSection toggleText="Equivalent command" isExpanded={open} onToggle={(_e, v) => setOpen(v)} data-equivalent-command="">
      <code>{command}</code>
    </ExpandableSection>
  );
}
