// Package client is the Go client of albedo's local HTTP API. The CLI and
// the console use it; so can any Go program that drives a daemon. Dial
// finds the daemon of an albedo home and starts one when none is running.
package client
