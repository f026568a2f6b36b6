/**
 * cert-manager for the local node (issue #46), built from the pinned module: upstream's mains
 * live in modules the module proxy does not serve, so the mains are ours, composed from its
 * packages: only the SelfSigned and CA issuers and the Certificate controllers (a shorter
 * build), one replica each, no leader election, no metrics. The webhook uses `internal/webhook`,
 * so the generated module is named under cert-manager's path. The CRDs (`deploy/crds`) are copied
 * into the cache entry.
 */
import { CERT_MANAGER_VERSION } from './versions.ts';
import type { ToolRecipe } from './tool-recipes.ts';

const CONTROLLER_MAIN = `// Command controller runs cert-manager's controller with the issuers a local cluster uses
// (SelfSigned and CA) and the Certificate and CertificateRequest controllers that serve them:
// no ACME, Vault, Venafi or Gateway support, no leader election (one replica), no metrics.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/cert-manager/cert-manager/pkg/controller"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/util"
	"golang.org/x/sync/errgroup"

	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/approver"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/ca"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificaterequests/selfsigned"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/issuing"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/keymanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/readiness"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/requestmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/revisionmanager"
	_ "github.com/cert-manager/cert-manager/pkg/controller/certificates/trigger"
	_ "github.com/cert-manager/cert-manager/pkg/controller/clusterissuers"
	_ "github.com/cert-manager/cert-manager/pkg/controller/issuers"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/ca"
	_ "github.com/cert-manager/cert-manager/pkg/issuer/selfsigned"
)

// The controllers this binary runs: every one the imports above register.
var controllers = []string{
	"issuers", "clusterissuers",
	"certificaterequests-approver", "certificaterequests-issuer-ca", "certificaterequests-issuer-selfsigned",
	"certificates-trigger", "certificates-issuing", "certificates-key-manager", "certificates-request-manager",
	"certificates-readiness", "certificates-revision-manager",
}

func main() {
	version := flag.Bool("version", false, "print the version and exit")
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (default: in-cluster)")
	clusterResourceNamespace := flag.String("cluster-resource-namespace", "cert-manager", "namespace of the Secrets ClusterIssuers refer to")
	flag.Parse()
	if *version {
		fmt.Printf("cert-manager controller %s\\n", util.VersionInfo().GitVersion)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	logf.InitLogs()
	ctx = logf.NewContext(ctx, logf.Log, "controller")
	if err := run(ctx, *kubeconfig, *clusterResourceNamespace); err != nil {
		logf.Log.Error(err, "controller failed")
		os.Exit(1)
	}
}

func run(ctx context.Context, kubeconfig, clusterResourceNamespace string) error {
	factory, err := controller.NewContextFactory(ctx, controller.ContextOptions{
		Kubeconfig:         kubeconfig,
		KubernetesAPIQPS:   20,
		KubernetesAPIBurst: 50,
		IssuerOptions:      controller.IssuerOptions{ClusterResourceNamespace: clusterResourceNamespace},
		CertificateOptions: controller.CertificateOptions{
			CopiedAnnotationPrefixes:                 []string{"*", "-kubectl.kubernetes.io/", "-fluxcd.io/", "-argocd.argoproj.io/"},
			CertificateRequestMinimumBackoffDuration: time.Hour,
			CertificateRequestMaximumBackoffDuration: 32 * time.Hour,
		},
	})
	if err != nil {
		return err
	}
	base, err := factory.Build()
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	known := controller.Known()
	for _, name := range controllers {
		constructor, ok := known[name]
		if !ok {
			return fmt.Errorf("controller %q is not registered", name)
		}
		iface, err := constructor(factory)
		if err != nil {
			return fmt.Errorf("starting controller %q: %w", name, err)
		}
		g.Go(func() error { return iface.Run(5, gctx) })
	}
	base.SharedInformerFactory.Start(gctx.Done())
	base.KubeSharedInformerFactory.Start(gctx.Done())
	base.HTTP01ResourceMetadataInformersFactory.Start(gctx.Done())
	logf.Log.Info("cert-manager controller started", "version", util.VersionInfo().GitVersion, "controllers", controllers)
	return g.Wait()
}
`;

const WEBHOOK_MAIN = `// Command webhook runs cert-manager's admission webhook (validation and defaulting of its
// resources) with cert-manager's own flags; it serves with a certificate it issues from a CA
// it keeps in a Secret (--dynamic-serving-ca-secret-name), the CA cainjector copies into the
// webhook configurations.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	cmwebhook "github.com/cert-manager/cert-manager/internal/webhook"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/util"
	"github.com/cert-manager/cert-manager/pkg/webhook/options"
	"github.com/spf13/pflag"
	ctrl "sigs.k8s.io/controller-runtime"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Printf("cert-manager webhook %s\\n", util.VersionInfo().GitVersion)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	logf.InitLogs()
	ctrl.SetLogger(logf.Log)
	if err := run(ctx); err != nil {
		logf.Log.Error(err, "webhook failed")
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	config, err := options.NewWebhookConfiguration()
	if err != nil {
		return err
	}
	flags := pflag.NewFlagSet("webhook", pflag.ContinueOnError)
	options.AddConfigFlags(flags, config)
	if err := flags.Parse(os.Args[1:]); err != nil {
		return err
	}
	log := logf.FromContext(ctx, "webhook")
	srv, err := cmwebhook.NewCertManagerWebhookServer(log, *config)
	if err != nil {
		return err
	}
	log.Info("cert-manager webhook started", "version", util.VersionInfo().GitVersion)
	return srv.Run(ctx)
}
`;

const CAINJECTOR_MAIN = `// Command cainjector runs cert-manager's CA injector: it copies a CA into the
// ValidatingWebhookConfigurations, MutatingWebhookConfigurations, CustomResourceDefinitions
// and APIServices annotated with cert-manager.io/inject-ca-from (a Certificate's Secret) or
// inject-ca-from-secret. One replica, no leader election, no metrics.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	cmscheme "github.com/cert-manager/cert-manager/pkg/client/clientset/versioned/scheme"
	"github.com/cert-manager/cert-manager/pkg/controller/cainjector"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	"github.com/cert-manager/cert-manager/pkg/util"
	corev1 "k8s.io/api/core/v1"
	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	kscheme "k8s.io/client-go/kubernetes/scheme"
	apireg "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

func main() {
	// controller-runtime defines --kubeconfig (ctrl.GetConfig reads it).
	version := flag.Bool("version", false, "print the version and exit")
	flag.Parse()
	if *version {
		fmt.Printf("cert-manager cainjector %s\\n", util.VersionInfo().GitVersion)
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	logf.InitLogs()
	ctrl.SetLogger(logf.Log)
	ctx = logf.NewContext(ctx, logf.Log, "cainjector")
	if err := run(ctx); err != nil {
		logf.Log.Error(err, "cainjector failed")
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	restConfig, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	utilruntime.Must(kscheme.AddToScheme(scheme))
	utilruntime.Must(cmscheme.AddToScheme(scheme))
	utilruntime.Must(apiext.AddToScheme(scheme))
	utilruntime.Must(apireg.AddToScheme(scheme))
	mgr, err := ctrl.NewManager(util.RestConfigWithUserAgent(restConfig, "cainjector"), ctrl.Options{
		Scheme:  scheme,
		Cache:   cache.Options{ReaderFailOnMissingInformer: true},
		Client:  client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
		Metrics: metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		return fmt.Errorf("creating the manager: %w", err)
	}
	if err := cainjector.RegisterAllInjectors(ctx, mgr, cainjector.SetupOptions{
		EnableCertificatesDataSource: true,
		EnabledReconcilersFor: map[string]bool{
			cainjector.MutatingWebhookConfigurationName:   true,
			cainjector.ValidatingWebhookConfigurationName: true,
			cainjector.APIServiceName:                     true,
			cainjector.CustomResourceDefinitionName:       true,
		},
	}); err != nil {
		return err
	}
	logf.Log.Info("cert-manager cainjector started", "version", util.VersionInfo().GitVersion)
	return mgr.Start(ctx)
}
`;

/** The three components, each built from our main at `./cmd/cert-manager-<component>`. */
const MAINS = { controller: CONTROLLER_MAIN, webhook: WEBHOOK_MAIN, cainjector: CAINJECTOR_MAIN };

/** cert-manager's three binaries and its CRDs (`deploy/crds/`) at CERT_MANAGER_VERSION. */
export const CERT_MANAGER_RECIPE: ToolRecipe = {
  name: 'cert-manager',
  version: CERT_MANAGER_VERSION,
  module: 'github.com/cert-manager/cert-manager',
  modulePath: 'github.com/cert-manager/cert-manager/olmv1-local',
  moduleDirs: ['deploy/crds'],
  siblingVersion: CERT_MANAGER_VERSION,
  binaries: Object.keys(MAINS).map((c) => ({ name: `cert-manager-${c}`, pkg: `./cmd/cert-manager-${c}` })),
  sources: Object.fromEntries(Object.entries(MAINS).map(([c, main]) => [`cmd/cert-manager-${c}/main.go`, main])),
  stamps: { 'github.com/cert-manager/cert-manager/pkg/util.AppVersion': CERT_MANAGER_VERSION },
  probes: Object.keys(MAINS).map((c) => ({ binary: `cert-manager-${c}`, args: ['--version'], expect: `cert-manager ${c} ${CERT_MANAGER_VERSION}` })),
  // Measured: 222 s user + system for all three with an empty Go build cache for cert-manager's
  // dependencies, on this machine kind (2026-11-25), rounded up.
  coldBuildCpuSeconds: 240,
};
