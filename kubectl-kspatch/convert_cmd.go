package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/pflag"
)

const convertUsage = `kubectl kspatch convert: rewrite pod groups for another scheduler's API.

Usage:
  kubectl kspatch convert [-f FILE|- ...] [--to upstream|kspatch] [-o yaml|json] [--remove-labels]

Reads Kubernetes objects (YAML documents separated by ---, JSON objects,
v1 Lists, nested ones too) from each FILE in turn (-f may be given more
than once, as with kubectl apply) or, with -f - or no -f, standard input,
and writes them to standard output, converted:

--to upstream (the default): for Kubernetes v1.37+ with its
scheduling.k8s.io/v1beta1 API.
  - kspatch PodGroups (scheduling.kspatch.io/v1alpha1) and coscheduling
    PodGroups (scheduling.x-k8s.io/v1alpha1) become v1beta1 PodGroups:
    gang.minCount or minMember is schedulingPolicy.gang.minCount, basic is
    basic, the Required topology level (a coscheduling group's annotation
    scheduling.kspatch.io/topology-required) is schedulingConstraints.topology[0],
    disruption mode Pod is disruptionMode.single and PodGroup is .all.
  - Pods, and pod templates in any object (Deployment, StatefulSet, Job,
    CronJob, custom resources: every map whose spec has containers), whose
    labels scheduling.kspatch.io/pod-group or scheduling.x-k8s.io/pod-group
    name a group get spec.schedulingGroup.podGroupName. The labels stay,
    unless --remove-labels (a label that a selector of the input uses
    stays: the template's own selector, a PodDisruptionBudget's, a
    Service's...). A group gets the priorityClassName its members in the
    input agree on (upstream gives all members the group's priority).
    A custom resource's template is a loss line: its CRD and operator
    must know spec.schedulingGroup.
--to kspatch: for the kspatch scheduler, back.
  - v1beta1 PodGroups become kspatch PodGroups.
  - Pods and templates with spec.schedulingGroup.podGroupName get the label
    scheduling.kspatch.io/pod-group instead.
  - Coscheduling PodGroups and their pods stay as they are: kspatch
    schedules them.

Everything else passes through unchanged. Statuses and what the API server
sets in metadata (uid, resourceVersion, timestamps, managedFields) are not
carried to a converted group: the scheduler and the API server write them.
Other objects keep theirs: convert manifests, not a live export (see
docs/migration.md).

A pod template without containers (a patch) that names a group is not
converted: a loss line says so. Pods labelled pod-group.scheduling.sigs.k8s.io
(older scheduler-plugins releases) are refused, as their PodGroups are.

What the target API cannot hold is printed on standard error, one line per
loss, naming the object (kind, API version, namespace/name, file and
document) and the field:
  loss: PodGroup scheduling.kspatch.io/v1alpha1 ml/train (document 1): spec.scheduleTimeoutSeconds: 600 is not carried: ...
Input that cannot be converted is printed the same way, as "error:" lines,
and then nothing is written to standard output.

Exit status: 0 converted, nothing lost; 3 converted, with losses (the
output is complete; read the loss lines before you apply it); 1 refused:
bad input, nothing written; 2 a usage error.

Flags:
`

// exitLosses is convert's exit status for an output with losses.
const exitLosses = 3

// convertOptions is convert's command line.
type convertOptions struct {
	files        []string
	to, output   string
	removeLabels bool
}

func parseConvert(argv []string, stderr io.Writer) (*convertOptions, error) {
	o := &convertOptions{}
	fs := pflag.NewFlagSet("kubectl-kspatch convert", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringArrayVarP(&o.files, "filename", "f", nil, "a file to read, - for standard input (repeat it for more files; default -)")
	fs.StringVar(&o.to, "to", "upstream", "upstream (scheduling.k8s.io/v1beta1) or kspatch (scheduling.kspatch.io/v1alpha1)")
	fs.StringVarP(&o.output, "output", "o", "yaml", "yaml or json")
	fs.BoolVar(&o.removeLabels, "remove-labels", false, "--to upstream: remove the group labels from the pods and templates it converts")
	fs.Usage = func() {
		_, _ = io.WriteString(stderr, convertUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(argv); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("convert takes no argument (got %q): name the input with -f", fs.Args())
	}
	if o.to != "upstream" && o.to != "kspatch" {
		return nil, fmt.Errorf("--to %q: the targets are upstream and kspatch", o.to)
	}
	if o.output != "yaml" && o.output != "json" {
		return nil, fmt.Errorf("-o %q: the formats are yaml and json", o.output)
	}
	if len(o.files) == 0 {
		o.files = []string{"-"}
	}
	if n := slices.Index(o.files, "-"); n >= 0 && slices.Index(o.files[n+1:], "-") >= 0 {
		return nil, errors.New("-f - is given twice: standard input is read once")
	}
	if o.removeLabels && o.to != "upstream" {
		return nil, errors.New("--remove-labels goes with --to upstream (--to kspatch always removes spec.schedulingGroup)")
	}
	return o, nil
}

// runConvert is `kubectl kspatch convert`: it returns the exit status.
func runConvert(argv []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseConvert(argv, stderr)
	if errors.Is(err, pflag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return exitUsage
	}
	inputs, err := readInputs(o.files, stdin)
	if err != nil {
		fmt.Fprintln(stderr, "error:", err)
		return exitFailed
	}
	c := newConversion(o.to == "upstream", o.removeLabels)
	c.run(inputs)
	for _, n := range c.losses {
		fmt.Fprintln(stderr, n.line("loss"))
	}
	if len(c.errs) > 0 {
		for _, n := range c.errs {
			fmt.Fprintln(stderr, n.line("error"))
		}
		fmt.Fprintf(stderr, "error: %d object(s) cannot be converted; nothing written\n", len(c.errs))
		return exitFailed
	}
	if err := writeObjects(stdout, c.out, o.output == "json"); err != nil {
		fmt.Fprintln(stderr, "error: writing the output:", err)
		return exitFailed
	}
	if len(c.losses) > 0 {
		fmt.Fprintf(stderr, "converted with %d loss(es): see the loss lines above\n", len(c.losses))
		return exitLosses
	}
	return 0
}

// readInputs reads the objects of each file in turn (- is standard
// input). With more than one file, each object is named by its file too;
// a file may be empty, as long as one holds an object.
func readInputs(files []string, stdin io.Reader) ([]input, error) {
	var inputs []input
	for _, f := range files {
		var data []byte
		var err error
		if f == "-" {
			data, err = io.ReadAll(stdin)
		} else {
			data, err = os.ReadFile(f)
		}
		if err != nil {
			return nil, fmt.Errorf("reading the input: %w", err)
		}
		objs, err := readObjects(data)
		source := ""
		if len(files) > 1 {
			source = f
			if f == "-" {
				source = "standard input"
			}
		}
		if err != nil {
			if source != "" {
				return nil, fmt.Errorf("%s: %w", source, err)
			}
			return nil, err
		}
		for i, obj := range objs {
			inputs = append(inputs, input{source, i + 1, obj})
		}
	}
	if len(inputs) == 0 {
		return nil, errors.New("the input holds no object")
	}
	return inputs, nil
}
