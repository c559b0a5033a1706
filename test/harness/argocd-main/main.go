// argocd-main: the harness's Argo CD binary (test/harness/build-argocd.sh). Argo CD's own cmd/main.go
// dispatches by binary name to every component, so building it compiles and links the API server,
// the CLI, Dex, the notifications controller and the commit server too. This main dispatches the same
// way (ARGOCD_BINARY_NAME, else the program's name) to only what test/harness/argocd.ts starts — the
// repo-server, the application-controller and the applicationset-controller — plus git-ask-pass,
// which the repo-server execs as `argocd` for credentialed git. Each component's command is Argo CD's
// own (cmd/<component>/commands); nothing here changes what they do.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	// Argo CD's full binary links gRPC's grpclb balancer (through the API server), whose init turns
	// on the DNS SRV lookups that grpc.DisableSRVLookups below turns off again (and panics if they are
	// not on). Linked here too, so that the flag goes through the same states as in Argo CD's binary.
	_ "google.golang.org/grpc/balancer/grpclb"
	"k8s.io/klog/v2"

	appcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	applicationset "github.com/argoproj/argo-cd/v3/cmd/argocd-applicationset-controller/commands"
	gitaskpass "github.com/argoproj/argo-cd/v3/cmd/argocd-git-ask-pass/commands"
	reposerver "github.com/argoproj/argo-cd/v3/cmd/argocd-repo-server/commands"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/util/grpc"
	"github.com/argoproj/argo-cd/v3/util/log"
)

func init() {
	// As Argo CD's cmd/main.go: klog logs through Argo CD's configured logger.
	klog.SetLogger(log.NewLogrusLogger(log.NewWithCurrentConfig()))
}

func main() {
	grpc.DisableSRVLookups()
	name := filepath.Base(os.Args[0])
	if v := os.Getenv("ARGOCD_BINARY_NAME"); v != "" {
		name = v
	}
	var command *cobra.Command
	switch name {
	case common.CommandApplicationController:
		command = appcontroller.NewCommand()
	case common.CommandRepoServer:
		command = reposerver.NewCommand()
	case common.CommandApplicationSetController:
		command = applicationset.NewCommand()
	case common.CommandGitAskPass, common.CommandCLI:
		// The repo-server runs git with GIT_ASKPASS=argocd and ARGOCD_BINARY_NAME=argocd-git-ask-pass.
		command = gitaskpass.NewCommand()
		command.SilenceErrors = true
		command.SilenceUsage = true
	default:
		fmt.Fprintf(os.Stderr, "argocd (mirrorc test build): unknown component %q; set ARGOCD_BINARY_NAME to %s, %s, %s or %s\n",
			name, common.CommandRepoServer, common.CommandApplicationController, common.CommandApplicationSetController, common.CommandGitAskPass)
		os.Exit(2)
	}
	if err := command.Execute(); err != nil {
		os.Exit(1)
	}
}
