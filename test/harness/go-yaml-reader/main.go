// go-yaml-reader: how Go's YAML readers read a plain scalar. Reads a JSON array of strings on stdin;
// for each string s it parses the document "v: <s>" with gopkg.in/yaml.v3 (kustomize's kyaml,
// Argo CD, Flux) and with sigs.k8s.io/yaml (kubectl, client-go; go-yaml v2 underneath), and prints a
// JSON array with one verdict per string:
//
//	"other"  a reader reads something else: a number, bool, null, time, another string, or an error
//	"range"  both read back s, but only because s, its "_" dropped as go-yaml drops them, is a number
//	         too large for a float64 (strconv.ParseFloat: ErrRange), which go-yaml leaves a string
//	"same"   both read back exactly s
package main

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"

	yamlv3 "gopkg.in/yaml.v3"
	k8syaml "sigs.k8s.io/yaml"
)

func readsBackV3(doc []byte, s string) bool {
	var m map[string]interface{}
	if err := yamlv3.Unmarshal(doc, &m); err != nil || len(m) != 1 {
		return false
	}
	v, ok := m["v"].(string)
	return ok && v == s
}

func readsBackK8s(doc []byte, s string) bool {
	var m map[string]interface{}
	if err := k8syaml.Unmarshal(doc, &m); err != nil || len(m) != 1 {
		return false
	}
	v, ok := m["v"].(string)
	return ok && v == s
}

func outOfRange(s string) bool {
	_, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	return errors.Is(err, strconv.ErrRange)
}

func main() {
	var in []string
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		os.Stderr.WriteString("go-yaml-reader: stdin is not a JSON array of strings: " + err.Error() + "\n")
		os.Exit(2)
	}
	out := make([]string, len(in))
	for i, s := range in {
		doc := []byte("v: " + s + "\n")
		switch {
		case !readsBackV3(doc, s) || !readsBackK8s(doc, s):
			out[i] = "other"
		case outOfRange(s):
			out[i] = "range"
		default:
			out[i] = "same"
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		os.Exit(1)
	}
}
