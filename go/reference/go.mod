module mcpgen.dev/reference

go 1.25

replace mcpgen.dev/runtime => ../runtime

require mcpgen.dev/runtime v0.0.0-00010101000000-000000000000

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/text v0.14.0 // indirect
)
