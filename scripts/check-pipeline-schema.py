#!/usr/bin/env python3
"""Checks pipeline files against the JSON Schema that `calpipe schema` prints, with an independent validator
(python jsonschema, draft 2020-12).

    calpipe schema > /tmp/pipeline.schema.json
    scripts/check-pipeline-schema.py /tmp/pipeline.schema.json pipelines/*.json [--markdown README.md docs/*.md]

Markdown files contribute every ```json block that has "sources" (the pipeline examples). Prints one line per
pipeline ("ok NAME" or "invalid NAME: PATH: MESSAGE") and exits 1 when any is invalid.
"""
import json
import re
import sys

import jsonschema


def pipelines(args):
    markdown = False
    for arg in args:
        if arg == "--markdown":
            markdown = True
            continue
        text = open(arg, encoding="utf-8").read()
        if not markdown:
            yield arg, json.loads(text)
            continue
        for i, block in enumerate(re.findall(r"```json\n(.*?)```", text, re.S)):
            if '"sources"' not in block:
                continue
            try:
                doc = json.loads(block)
            except json.JSONDecodeError as e:
                doc = {"$unreadable": str(e)}
            yield f"{arg}#{i + 1}", doc


def main():
    schema = json.load(open(sys.argv[1], encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for name, doc in pipelines(sys.argv[2:]):
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if errors:
            bad += 1
            for e in errors:
                path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.absolute_path).lstrip(".")
                print(f"invalid {name}: {path}: {e.message}")
        else:
            print(f"ok {name}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
