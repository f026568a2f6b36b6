/**
 * What the CSV's suggested-namespace template sets on the namespace Install creates (issue 71,
 * decision 0157), shown with the preview: its labels and annotations, and a checkbox naming the
 * entries that weaken the namespace's Pod security, which Install applies only when it is checked
 * (`olmv1 install --accept-namespace-labels`). Catalog content: shown as text only.
 */
import { Checkbox } from '@patternfly/react-core';

/** What `/api/install` answers of the template (install-result.ts). */
export interface NamespaceTemplateView {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** `label KEY=VALUE` / `annotation KEY=VALUE`: in `labels`/`annotations` only when accepted. */
  podSecurity: string[];
}

interface Props {
  namespace: string;
  template: NamespaceTemplateView;
  accepted: boolean;
  onAccept(accepted: boolean): void;
}

/** The template's entries on `namespace`, nothing when it sets none. */
export function NamespaceTemplateDetails({ namespace, template, accepted, onAccept }: Props) {
  const weakening = new Set(template.podSecurity);
  const entries = (kind: 'label' | 'annotation', m: Record<string, string>): string[] =>
    Object.entries(m)
      .map(([k, v]) => `${kind} ${k}=${v}`)
      .filter((e) => !weakening.has(e));
  const applied = [...entries('label', template.labels), ...entries('annotation', template.annotations)];
  if (applied.length === 0 && template.podSecurity.length === 0) return null;
  return (
    <div data-install-namespace-template="">
      <p>
        The bundle&apos;s namespace template sets on <code>{namespace}</code>:
      </p>
      <ul>
        {applied.map((e) => (
          <li key={e}>
            <code>{e}</code>
          </li>
        ))}
      </ul>
      {template.podSecurity.length > 0 && (
        <Checkbox
          id="install-accept-namespace-labels"
          isChecked={accepted}
          onChange={(_e, checked) => onAccept(checked)}
          label={
            <>
              Also apply{' '}
              {template.podSecurity.map((e, i) => (
                <span key={e}>
                  {i > 0 && ', '}
                  <code>{e}</code>
                </span>
              ))}
              , which weaken the namespace&apos;s Pod security
            </>
          }
          description="Unchecked, Install leaves them out (olmv1 install --accept-namespace-labels applies them)."
        />
      )}
    </div>
  );
}
