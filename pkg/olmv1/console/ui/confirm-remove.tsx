/** A table row's *Remove…* button that asks once more: *Remove NAME* or *Cancel*. */
import { Button } from '@patternfly/react-core';

/** The button, or while `confirming` the confirmation; `onRemove` runs on the confirmation's click. */
export function ConfirmRemove({
  name,
  confirming,
  onAsk,
  onCancel,
  onRemove,
}: {
  name: string;
  confirming: boolean;
  onAsk(): void;
  onCancel(): void;
  onRemove(): void;
}) {
  if (!confirming)
    return (
      <Button variant="secondary" isDanger size="sm" aria-label={`Remove ${name}…`} onClick={onAsk}>
        Remove…
      </Button>
    );
  return (
    <span>
      <Button
        variant="danger"
        size="sm"
        onClick={() => {
          onCancel();
          onRemove();
        }}
      >
        Remove {name}
      </Button>{' '}
      <Button variant="link" size="sm" onClick={onCancel}>
        Cancel
      </Button>
    </span>
  );
}
