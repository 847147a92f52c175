module github.com/santhosh-tekuri/jsonschema/v5

go 1.19
