/**
 * The Install form's OperatorHub choices (issue 71): the installed namespace (the CSV's suggested
 * namespace offered first, created by Install when missing), the install mode the bundle supports
 * with its watch namespace (written as upstream's `spec.config.inline.watchNamespace`), and
 * "install the dependencies first" (`olmv1 install --with-dependencies`).
 */
import { Checkbox, FormGroup, FormHelperText, HelperText, HelperTextItem, Radio, TextInput } from '@patternfly/react-core';
import { INSTALL_MODES, type InstallForm } from '../install-form.ts';
import type { Detail } from './api.ts';

const MODE_LABEL: Record<InstallForm['installMode'], string> = {
  AllNamespaces: 'All namespaces on the cluster',
  OwnNamespace: 'The installed namespace only',
  SingleNamespace: 'A specific namespace on the cluster',
};

const MODE_HELP: Record<InstallForm['installMode'], string> = {
  AllNamespaces: 'AllNamespaces: no watch namespace is configured.',
  OwnNamespace: 'OwnNamespace: the watch namespace is the installed namespace.',
  SingleNamespace: 'SingleNamespace: the operator watches the namespace named below, not its own.',
};

/** The install modes of `d` the form offers, in OperatorHub's order. */
export function offeredModes(d: Pick<Detail, 'installModes'>): InstallForm['installMode'][] {
  return INSTALL_MODES.filter((m) => d.installModes.includes(m));
}

interface Props {
  d: Detail;
  form: InstallForm;
  set(patch: Partial<InstallForm>): void;
  /** The namespace is the suggested one (true), or typed (false). */
  suggested: boolean;
  setSuggested(v: boolean): void;
}

/** The installed namespace, with the CSV's suggested namespace offered first when it has one. */
export function NamespaceChoice({ d, form, set, suggested, setSuggested }: Props) {
  const help = (
    <FormHelperText>
      <HelperText>
        <HelperTextItem>Install creates the namespace when it does not exist (the preview lists it).</HelperTextItem>
      </HelperText>
    </FormHelperText>
  );
  if (d.suggestedNamespace === '')
    return (
      <FormGroup label="Namespace" isRequired fieldId="install-namespace">
        <TextInput id="install-namespace" isRequired value={form.namespace} onChange={(_e, v) => set({ namespace: v })} />
        {help}
      </FormGroup>
    );
  return (
    <FormGroup label="Installed namespace" isRequired fieldId="install-namespace-suggested" role="radiogroup" isStack>
      <Radio
        id="install-namespace-suggested"
        name="install-namespace-choice"
        label={
          <>
            Operator recommended namespace: <code>{d.suggestedNamespace}</code>
          </>
        }
        isChecked={suggested}
        onChange={() => {
          setSuggested(true);
          set({ namespace: d.suggestedNamespace });
        }}
      />
      <Radio
        id="install-namespace-other"
        name="install-namespace-choice"
        label="Select a namespace"
        isChecked={!suggested}
        onChange={() => setSuggested(false)}
      />
      {!suggested && (
        <TextInput id="install-namespace" aria-label="Namespace" isRequired value={form.namespace} onChange={(_e, v) => set({ namespace: v })} />
      )}
      {help}
    </FormGroup>
  );
}

/** The install mode (only those the bundle supports) and SingleNamespace's watch namespace. */
export function InstallModeChoice({ d, form, set }: Pick<Props, 'd' | 'form' | 'set'>) {
  const modes = offeredModes(d);
  return (
    <FormGroup label="Installation mode" fieldId={`install-mode-${modes[0] ?? 'none'}`} role="radiogroup" isStack>
      {modes.length === 0 && (
        <p data-install-no-mode="">
          The bundle supports none of AllNamespaces, OwnNamespace and SingleNamespace
          {d.installModes.includes('MultiNamespace') ? ' (MultiNamespace alone: a ClusterExtension names one watch namespace)' : ''}:
          operator-controller refuses it.
        </p>
      )}
      {modes.map((m) => (
        <Radio
          key={m}
          id={`install-mode-${m}`}
          name="install-mode"
          label={MODE_LABEL[m]}
          description={MODE_HELP[m]}
          isChecked={form.installMode === m}
          onChange={() => set({ installMode: m })}
          data-install-mode={m}
        />
      ))}
      {form.installMode === 'SingleNamespace' && (
        <FormGroup label="Watch namespace" isRequired fieldId="install-watch-namespace">
          <TextInput id="install-watch-namespace" isRequired value={form.watchNamespace} onChange={(_e, v) => set({ watchNamespace: v })} />
          <FormHelperText>
            <HelperText>
              <HelperTextItem>Not the installed namespace; written as the ClusterExtension&apos;s spec.config.inline.watchNamespace.</HelperTextItem>
            </HelperText>
          </FormHelperText>
        </FormGroup>
      )}
    </FormGroup>
  );
}

/** "Install the dependencies first", with what the package requires. */
export function DependenciesChoice({ d, form, set }: Pick<Props, 'd' | 'form' | 'set'>) {
  return (
    <FormGroup label="Dependencies" fieldId="install-with-dependencies" role="group">
      <Checkbox
        id="install-with-dependencies"
        label="Install the dependencies the cluster lacks first"
        description={
          d.required.length === 0
            ? 'The newest bundle declares no dependency.'
            : `It requires ${d.required.join('; ')}. Each missing one is installed as its own ClusterExtension, and waited for, before this one; Preview lists them.`
        }
        isChecked={form.withDependencies}
        onChange={(_e, checked) => set({ withDependencies: checked })}
      />
    </FormGroup>
  );
}
