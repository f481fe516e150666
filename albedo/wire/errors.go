package wire

import (
	"encoding/json"
	"errors"
	"maps"
)

// CodedError is an error that carries one of the error codes: the domain's
// errors and the client's error answers both are.
type CodedError interface {
	error
	// ErrorCode returns the error's code, such as CodeNotFound.
	ErrorCode() string
}

// ErrorCode returns the code of the first CodedError in err's chain, or ""
// for nil and for errors that carry no code, such as a cancelled context.
func ErrorCode(err error) string {
	var coded CodedError
	if errors.As(err, &coded) {
		return coded.ErrorCode()
	}
	return ""
}

// ErrorBody is the body of every error answer: {"error": message, "code":
// code} plus the details the error carries, at the top level.
type ErrorBody struct {
	// Error is the message for people.
	Error string `json:"error"`
	// Code is the error code for programs.
	Code string `json:"code"`
	// Details are the error's further fields, such as "workspace".
	Details map[string]any `json:"-"`
}

// MarshalJSON writes the details beside the message and code.
func (b ErrorBody) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(b.Details)+2)
	maps.Copy(out, b.Details)
	out["error"], out["code"] = b.Error, b.Code
	return json.Marshal(out)
}

// UnmarshalJSON reads the message, the code and every other field as a
// detail.
func (b *ErrorBody) UnmarshalJSON(data []byte) error {
	var all map[string]any
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	b.Error, _ = all["error"].(string)
	b.Code, _ = all["code"].(string)
	delete(all, "error")
	delete(all, "code")
	b.Details = all
	return nil
}
