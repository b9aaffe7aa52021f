// Package tools pins the Go tools the tests run (`go tool staticcheck`), in go.mod and go.sum.
package tools
