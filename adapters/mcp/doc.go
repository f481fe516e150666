// Package mcp reaches Model Context Protocol servers for the model: it reads
// their configuration (the "mcp" section of extensions.json), starts stdio
// servers as confined processes of their own or connects to streamable HTTP
// servers, lists their tools under names every provider accepts, repairs
// their input schemas for the providers, and calls them, turning each
// result into text and images for the model.
//
// It is built on the official Go SDK, github.com/modelcontextprotocol/go-sdk.
// A server that fails to start, hangs or dies fails its own calls only.
package mcp
