# Extracts the request and response schemas archiplan's fake servers check against from OpenAI's
# published OpenAPI document (github.com/openai/openai-openapi, openapi.yaml, MIT licence), with
# every schema they reach under $defs, and OpenAPI's nullable written as JSON Schema's type null. Run: python3 extract.py OPENAPI.yaml COMMIT > openai-chat.json
import json, sys, yaml

spec = yaml.safe_load(open(sys.argv[1]))
schemas = spec["components"]["schemas"]
roots = ["CreateChatCompletionRequest", "CreateChatCompletionResponse", "CreateResponse", "Response"]
defs, todo = {}, list(roots)

def walk(node):
    if isinstance(node, dict):
        if node.get("nullable") is True:
            # OpenAPI 3.0's nullable, in JSON Schema's words
            node = {k: v for k, v in node.items() if k != "nullable"}
            if isinstance(node.get("type"), str):
                node["type"] = [node["type"], "null"]
                if "enum" in node:
                    node["enum"] = node["enum"] + [None]
            else:
                node = {"anyOf": [node, {"type": "null"}]}
        out = {}
        for k, v in node.items():
            if k == "$ref":
                name = v.rsplit("/", 1)[1]
                if name not in defs and name not in todo:
                    todo.append(name)
                out[k] = "#/$defs/" + name
            elif k == "$recursiveAnchor":
                continue  # draft 2019's; its $recursiveRef below becomes a plain reference
            elif k == "$recursiveRef":
                out["$ref"] = "#/$defs/" + current[0]
            elif k.startswith("x-") or k in ("description", "example", "examples", "title", "discriminator", "deprecated"):
                continue
            else:
                out[k] = walk(v)
        return out
    if isinstance(node, list):
        return [walk(v) for v in node]
    return node

current = [None]
while todo:
    name = todo.pop()
    current[0] = name
    defs[name] = None
    defs[name] = walk(schemas[name])

json.dump({"source": "openai/openai-openapi openapi.yaml at " + sys.argv[2], "$defs": defs},
          sys.stdout, indent=None, sort_keys=True, separators=(",", ":"))
