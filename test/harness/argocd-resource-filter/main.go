// argocd-resource-filter asks Argo CD's own settings code (github.com/argoproj/argo-cd/v3/util/settings)
// which kinds it would ignore: it reads argocd-cm from a live cluster exactly as Argo CD's controllers do
// (SettingsManager, informers on the argocd namespace), builds the ResourcesFilter and prints, for each
// `group/Kind` argument, whether it is excluded and which label selector Argo CD would list it with.
//
// Usage: argocd-resource-filter <kubeconfig> <namespace> <cluster URL> <group/Kind>...   (core group: "/Endpoints")
// Output: one JSON object {"<group/Kind>": {"excluded": bool, "selector": "..."}, ...}.
//
// Built by ../build-argocd-resource-filter.sh; used by test/integration/argocd-resource-filter.test.ts.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/util/settings"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

type verdict struct {
	Excluded bool   `json:"excluded"`
	Selector string `json:"selector"`
}

func main() {
	if len(os.Args) < 5 {
		fmt.Fprintln(os.Stderr, "usage: argocd-resource-filter <kubeconfig> <namespace> <cluster URL> <group/Kind>...")
		os.Exit(2)
	}
	config, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubeconfig:", err)
		os.Exit(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	manager := settings.NewSettingsManager(ctx, kubernetes.NewForConfigOrDie(config), os.Args[2])
	filter, err := manager.GetResourcesFilter()
	if err != nil {
		fmt.Fprintln(os.Stderr, "resources filter:", err)
		os.Exit(1)
	}
	out := map[string]verdict{}
	for _, gk := range os.Args[4:] {
		group, kind, ok := strings.Cut(gk, "/")
		if !ok {
			fmt.Fprintf(os.Stderr, "%q is not group/Kind\n", gk)
			os.Exit(2)
		}
		out[gk] = verdict{Excluded: filter.IsExcludedResource(group, kind, os.Args[3]), Selector: filter.GetLabelSelector(group, kind, os.Args[3])}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
