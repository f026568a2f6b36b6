/**
 * The Install page (`#/install/CATALOG/PACKAGE`): the fields `olmv1 install` offers; "Preview"
 * runs `olmv1 install --dry-run -o yaml` as the user and shows the namespace, installer
 * ServiceAccount, least-privilege RBAC and ClusterExtension it would create (with an existing
 * ServiceAccount chosen as the installer, `--service-account`: the ClusterExtension only), which
 * "Download" saves as NAME.yaml (a Blob URL on an `<a download>`: no CSP directive governs a
 * download, so the CSP stays as it is); "Install" creates them and goes to the extension's page,
 * which follows it until Installed. The namespace, install mode and dependencies choices are
 * install-options.tsx; a preview with dependencies lists those Install installs first. A preview
 * of a namespace Install creates shows what the CSV's namespace template sets on it, with the
 * checkbox for its entries that weaken Pod security (namespace-template.tsx; its toggle previews again).
 */
import { useEffect, useState } from 'react';
import {
  ActionGroup,
  Alert,
  Breadcrumb,
  BreadcrumbItem,
  Button,
  Checkbox,
  CodeBlock,
  CodeBlockCode,
  Form,
  FormGroup,
  FormHelperText,
  FormSelect,
  FormSelectOption,
  HelperText,
  HelperTextItem,
  PageSection,
  Spinner,
  TextInput,
  Title,
  ExpandableSection,
} from '@patternfly/react-core';
import type { InstallForm } from '../install-form.ts';
import { UPDATE_POLICIES, UPGRADE_CONSTRAINT_POLICIES } from '../install-form.ts';
import { extensionHref, getJson, packageHref, postJson, type Detail } from './api.ts';
import { acknowledgementMissing, CommunityWarning } from './source-badge.tsx';
import { EquivalentCommand } from './equivalent-command.tsx';
import { DependenciesChoice, InstallModeChoice, NamespaceChoice, offeredModes } from './install-options.tsx';
import { NamespaceTemplateDetails, type NamespaceTemplateView } from './namespace-template.tsx';
import { Table } from './table.tsx';

/** What `/api/install` answers (install-result.ts). */
interface InstallAnswer {
  yaml: string;
  log: string;
  name: string;
  objects: { kind: string; metadata: { name?: string } }[];
  dependencies: { requirement: string; packageName: string; version: string; catalog: string }[];
  namespaceTemplate: NamespaceTemplateView | null;
}

const UPDATE_POLICY_HELP: Record<InstallForm['updatePolicy'], string> = {
  Automatic: 'every upgrade the catalog offers is applied',
  AutomaticPatch: 'patch upgrades are applied; others wait for approval',
  Manual: 'every upgrade waits for approval ("olmv1 upgrade approve")',
};

/** The Install page of a package. */
export function InstallPage({ catalog, name }: { catalog: string; name: string }) {
  const [d, setD] = useState<Detail | undefined>();
  const [loadError, setLoadError] = useState<string | undefined>();
  const [form, setForm] = useState<InstallForm>({
    catalog,
    package: name,
    name,
    namespace: name,
    channel: '',
    version: '',
    upgradeConstraintPolicy: 'CatalogProvided',
    updatePolicy: 'Automatic',
    serviceAccount: '',
    installMode: 'AllNamespaces',
    watchNamespace: '',
    withDependencies: false,
    acceptCommunity: false,
    acceptNamespaceLabels: false,
  });
  const [suggested, setSuggested] = useState(false);
  // The installer: a new least-privilege ServiceAccount (false), or the existing one named in form.serviceAccount.
  const [existing, setExisting] = useState(false);
  const [advanced, setAdvanced] = useState(false);
  const [acknowledged, setAcknowledged] = useState(false);
  const [preview, setPreview] = useState<InstallAnswer | undefined>();
  const yaml = preview?.yaml;
  const [log, setLog] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState<'preview' | 'install' | undefined>();
  useEffect(() => {
    const ac = new AbortController();
    getJson<Detail>(`/api/packages/${encodeURIComponent(catalog)}/${encodeURIComponent(name)}`, ac.signal).then(
      (detail) => {
        setD(detail);
        // As OperatorHub: the suggested namespace and the first install mode the bundle supports, preselected.
        setSuggested(detail.suggestedNamespace !== '');
        setForm((f) => ({
          ...f,
          namespace: detail.suggestedNamespace || f.namespace,
          installMode: offeredModes(detail)[0] ?? f.installMode,
        }));
      },
      (e: unknown) => (ac.signal.aborted ? undefined : setLoadError(String((e as Error).message))),
    );
    return () => ac.abort();
  }, [catalog, name]);
  const set = (patch: Partial<InstallForm>): void => {
    setForm((f) => ({ ...f, ...patch }));
    setPreview(undefined);
  };
  const run = (dryRun: boolean, patch: Partial<InstallForm> = {}): void => {
    setBusy(dryRun ? 'preview' : 'install');
    setError(undefined);
    const body = { ...form, ...patch, serviceAccount: existing ? form.serviceAccount : '', acceptCommunity: acknowledged, dryRun };
    postJson<InstallAnswer>('/api/install', body).then(
      (r) => {
        setBusy(undefined);
        setLog(r.log);
        if (dryRun) setPreview(r);
        else window.location.hash = extensionHref(r.name);
      },
      (e: unknown) => {
        setBusy(undefined);
        setError(String((e as Error).message));
      },
    );
  };
  const download = (text: string): void => {
    const href = URL.createObjectURL(new Blob([text], { type: 'application/yaml' }));
    const a = document.createElement('a');
    a.href = href;
    a.download = `${form.name}.yaml`;
    document.body.append(a);
    a.click();
    a.remove();
    // The browser reads the Blob once the download starts; the URL is released after that.
    setTimeout(() => URL.revokeObjectURL(href), 60_000);
  };
  const crumbs = (
    <Breadcrumb>
      <BreadcrumbItem to="#/">OperatorHub</BreadcrumbItem>
      <BreadcrumbItem to={packageHref({ catalog, name })}>{d?.displayName ?? name}</BreadcrumbItem>
      <BreadcrumbItem isActive>Install</BreadcrumbItem>
    </Breadcrumb>
  );
  if (d === undefined)
    return (
      <PageSection aria-label="Install">
        {crumbs}
        {loadError === undefined ? <Spinner aria-label="Loading the package" /> : <Alert component="p" variant="danger" isInline title={loadError} />}
      </PageSection>
    );
  return (
    <PageSection aria-label="Install" className="olmv1-install">
      {crumbs}
      <Title headingLevel="h1">Install {d.displayName}</Title>
      <p>
        From catalog {catalog}. The console runs <code>olmv1 install</code> as you: it creates the namespace if needed,{' '}
        {existing ? (
          <>
            and the ClusterExtension, installed by the existing ServiceAccount you name (no ServiceAccount or RBAC is created: the rights it holds are
            its owner&apos;s concern).
          </>
        ) : (
          <>
            a ServiceAccount <code>{form.name}-installer</code> with exactly the RBAC the bundle needs, and the ClusterExtension.
          </>
        )}
      </p>
      <Form
        onSubmit={(e) => {
          e.preventDefault();
          run(true);
        }}
      >
        <FormGroup label="Name" isRequired fieldId="install-name">
          <TextInput id="install-name" isRequired value={form.name} onChange={(_e, v) => set({ name: v })} />
        </FormGroup>
        <NamespaceChoice d={d} form={form} set={set} suggested={suggested} setSuggested={setSuggested} />
        <InstallModeChoice d={d} form={form} set={set} />
        <FormGroup label="Channel" fieldId="install-channel">
          <FormSelect id="install-channel" value={form.channel} onChange={(_e, v) => set({ channel: v })}>
            <FormSelectOption value="" label={`any channel (default ${d.defaultChannel})`} />
            {d.channels.map((c) => (
              <FormSelectOption key={c.name} value={c.name} label={c.name} />
            ))}
          </FormSelect>
        </FormGroup>
        <ExpandableSection toggleText="Advanced" isExpanded={advanced} onToggle={(_e, v) => setAdvanced(v)}>
          <FormGroup label="Version range" fieldId="install-version">
            <TextInput id="install-version" placeholder="e.g. 1.2.3 or >=1.0.0, <2" value={form.version} onChange={(_e, v) => set({ version: v })} />
          </FormGroup>
          <FormGroup label="Upgrade constraint policy" fieldId="install-ucp">
            <FormSelect
              id="install-ucp"
              value={form.upgradeConstraintPolicy}
              onChange={(_e, v) => set({ upgradeConstraintPolicy: v as InstallForm['upgradeConstraintPolicy'] })}
            >
              {UPGRADE_CONSTRAINT_POLICIES.map((p) => (
                <FormSelectOption
                  key={p}
                  value={p}
                  label={p === 'CatalogProvided' ? 'CatalogProvided: follow the upgrade graph' : 'SelfCertified: any version in range'}
                />
              ))}
            </FormSelect>
          </FormGroup>
        </ExpandableSection>
        <FormGroup label="Update policy" fieldId="install-update-policy">
          <FormSelect
            id="install-update-policy"
            value={form.updatePolicy}
            onChange={(_e, v) => set({ updatePolicy: v as InstallForm['updatePolicy'] })}
          >
            {UPDATE_POLICIES.map((p) => (
              <FormSelectOption key={p} value={p} label={`${p}: ${UPDATE_POLICY_HELP[p]}`} />
            ))}
          </FormSelect>
        </FormGroup>
        <FormGroup label="Installer" fieldId="install-existing-sa" role="group">
          <Checkbox
            id="install-existing-sa"
            label="Install as an existing ServiceAccount"
            description={`One in the install namespace, named below. Unchecked: a new ServiceAccount ${form.name}-installer with least privilege is created.`}
            isChecked={existing}
            onChange={(_e, checked) => {
              setExisting(checked);
              setPreview(undefined);
            }}
          />
        </FormGroup>
        {existing && (
          <FormGroup label="ServiceAccount" isRequired fieldId="install-service-account">
            <TextInput id="install-service-account" isRequired value={form.serviceAccount} onChange={(_e, v) => set({ serviceAccount: v })} />
            <FormHelperText>
              <HelperText>
                <HelperTextItem>It must exist in the namespace; olmv1 install refuses otherwise.</HelperTextItem>
              </HelperText>
            </FormHelperText>
          </FormGroup>
        )}
        <DependenciesChoice d={d} form={form} set={set} />
        {error !== undefined && (
          <Alert component="p" variant="danger" isInline title="olmv1 install refused" data-install-error="">
            <pre className="olmv1-log">{error}</pre>
          </Alert>
        )}
        <CommunityWarning badge={d.badge} acknowledged={acknowledged} onChange={setAcknowledged} />
        <ActionGroup>
          <Button type="submit" variant={yaml === undefined ? 'primary' : 'secondary'} isDisabled={busy !== undefined} isLoading={busy === 'preview'}>
            Preview
          </Button>
          <Button
            variant="primary"
            onClick={() => run(false)}
            isDisabled={yaml === undefined || busy !== undefined || acknowledgementMissing(d.badge, acknowledged) !== undefined}
            isLoading={busy === 'install'}
            aria-describedby="install-why-disabled"
          >
            Install
          </Button>
        </ActionGroup>
        <HelperText id="install-why-disabled">
          <HelperTextItem>
            {yaml === undefined
              ? 'Install is available after Preview: first see what it creates.'
              : (acknowledgementMissing(d.badge, acknowledged) ?? 'Install creates what the preview shows.')}
          </HelperTextItem>
        </HelperText>
      </Form>
      {yaml !== undefined && (
        <section aria-labelledby="install-yaml-heading" data-install-yaml="">
          <Title headingLevel="h2" id="install-yaml-heading">
            What Install creates
          </Title>
          {preview?.objects.some((o) => o.kind === 'Namespace') === true && (
            <p data-install-creates-namespace="">
              Namespace <code>{form.namespace}</code> does not exist: Install creates it.
            </p>
          )}
          {preview?.namespaceTemplate != null && (
            <NamespaceTemplateDetails
              namespace={form.namespace}
              template={preview.namespaceTemplate}
              accepted={form.acceptNamespaceLabels}
              onAccept={(accepted) => {
                // The preview is run again, so what it shows is what Install writes.
                setForm((f) => ({ ...f, acceptNamespaceLabels: accepted }));
                run(true, { acceptNamespaceLabels: accepted });
              }}
            />
          )}
          {form.withDependencies && (
            <div data-install-dependencies="">
              <Title headingLevel="h3">Installed first</Title>
              {preview === undefined || preview.dependencies.length === 0 ? (
                <p>No dependency is missing: nothing is installed first.</p>
              ) : (
                <Table
                  label="Dependencies Install installs first"
                  head={['Package', 'Version', 'Catalog', 'For']}
                  rows={preview.dependencies.map((x) => [x.packageName, x.version, x.catalog, x.requirement])}
                />
              )}
            </div>
          )}
          <p>Keep them for GitOps.</p>
          <EquivalentCommand command={installCommand(catalog, name, { ...form, acceptCommunity: acknowledged })} />
          <CodeBlock
            actions={
              <Button variant="secondary" onClick={() => download(yaml)} data-install-download="">
                Download {form.name}.yaml
              </Button>
            }
          >
            <CodeBlockCode>{yaml}</CodeBlockCode>
          </CodeBlock>
          {log !== '' && <pre className="olmv1-log">{log}</pre>}
        </section>
      )}
    </PageSection>
  );
}

/** `olmv1 install` with the flags the form's choices amount to. */
function installCommand(catalog: string, pkg: string, form: InstallForm): string {
  const flags = [
    ` --catalog ${catalog}`,
    form.name === pkg ? '' : ` --name ${form.name}`,
    ` --namespace ${form.namespace}`,
    form.installMode === 'OwnNamespace' ? ` --watch-namespace ${form.namespace}` : '',
    form.installMode === 'SingleNamespace' ? ` --watch-namespace ${form.watchNamespace}` : '',
    form.withDependencies ? ' --with-dependencies' : ' --dry-run -o yaml',
    form.acceptCommunity ? ' --accept-community' : '',
    form.acceptNamespaceLabels ? ' --accept-namespace-labels' : '',
  ];
  return `olmv1 install ${pkg}${flags.join('')}`;
}
