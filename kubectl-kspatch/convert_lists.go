package main

import (
	"errors"
	"fmt"
	"strings"
)

// Lists in the input: kind List, or a typed list such as PodList or
// PodGroupList, whose items may be Lists again. kubectl flattens them
// (cli-runtime's FlattenListVisitor) and applies every item; convert
// converts every item, at any depth, and keeps the nesting in its output.

// listItems returns the items of a List (kind List, or a typed list such
// as PodList), and whether obj is one.
func listItems(obj map[string]interface{}) ([]interface{}, bool, error) {
	kind, _ := obj["kind"].(string)
	v, hasItems := obj["items"]
	if !strings.HasSuffix(kind, "List") || !hasItems {
		return nil, false, nil
	}
	if v == nil {
		return nil, true, nil
	}
	items, ok := v.([]interface{})
	if !ok {
		return nil, true, errors.New("not a list")
	}
	return items, true, nil
}

// listItem returns the i-th item of list as an object. A typed list
// (PodList, PodGroupList) may leave its items' kind and apiVersion out:
// they are the list's.
func listItem(list map[string]interface{}, i int, it interface{}) (map[string]interface{}, error) {
	item, ok := it.(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("items[%d]: not an object", i)
	}
	if kind, _ := list["kind"].(string); kind != "List" {
		if _, ok := item["kind"]; !ok {
			item["kind"] = strings.TrimSuffix(kind, "List")
		}
		if _, ok := item["apiVersion"]; !ok {
			item["apiVersion"] = list["apiVersion"]
		}
	}
	return item, nil
}

// eachObject calls fn for every object of the input obj (ref names it):
// obj itself, or the items of a List, at any depth. What is not an
// object is skipped: converting obj reports it.
func eachObject(ref objectRef, obj map[string]interface{}, fn func(objectRef, map[string]interface{})) {
	items, isList, err := listItems(obj)
	if err != nil {
		return
	}
	if !isList {
		fn(ref, obj)
		return
	}
	for i, it := range items {
		if item, err := listItem(obj, i, it); err == nil {
			eachObject(ref.item(i, item), item, fn)
		}
	}
}

// node converts obj (ref names it): an object, or a List whose items are
// converted one by one into a v1 List; nil leaves it out of the output.
func (c *conversion) node(ref objectRef, obj map[string]interface{}) map[string]interface{} {
	items, isList, err := listItems(obj)
	if err != nil {
		c.errs = append(c.errs, note{ref, fieldNote{"items", err.Error()}})
		return nil
	}
	if !isList {
		return c.object(ref, obj)
	}
	converted := []interface{}{}
	for i, it := range items {
		item, err := listItem(obj, i, it)
		if err != nil {
			c.errs = append(c.errs, note{ref, fieldNote{"", err.Error()}})
			continue
		}
		if out := c.node(ref.item(i, item), item); out != nil {
			converted = append(converted, out)
		}
	}
	return map[string]interface{}{"apiVersion": "v1", "kind": "List", "items": converted}
}
