// Package openai streams model replies from providers that speak either of
// OpenAI's HTTP protocols, Chat Completions and Responses. Client
// implements albedo.Provider.
//
// # Requests
//
// A Chat Completions request posts {BaseURL}/chat/completions with the
// instructions as a leading system message, the projected transcript as
// "messages", the tools as functions, "stream" and
// "stream_options.include_usage", and "reasoning_effort" when an effort is
// set. A Responses request posts {BaseURL}/responses with "input",
// "instructions", the tools (with "strict": false), "stream" and "store":
// false; for a reasoning model (an effort set, the provider's "reasoning"
// setting, or a model named like OpenAI's reasoning models, see reasons)
// it adds "reasoning" {effort, summary: "auto"} and asks for
// "reasoning.encrypted_content", without which a reasoning item cannot be
// sent back to a provider that stores nothing; a provider that refuses
// "include" (400 or 422 naming it) is asked once more without it, and not
// again. Both protocols send the session id as "prompt_cache_key" unless
// the endpoint turns it off. The key goes in an
// Authorization bearer header, and nowhere else: no error message or log
// line holds it, even when the provider quotes it back.
//
// # Replies
//
// Text, reasoning and tool call arguments are passed to onDelta as they
// arrive. The finished reply's items carry the protocol; a Responses output
// item also its Raw, the item as received less its id (a request that
// stores nothing must not name one), cut once, when the reply is decoded.
// Chat Completions items, and Responses items made from deltas alone, carry
// no Raw: the projection writes them from their fields. Chat Completions
// items come as reasoning, text, then tool calls by index; a call without
// an id is given one ("call_" and random characters). Responses items come
// in output order, read from the final response's "output", or failing that
// from the finished output items, or failing that from the deltas (the
// delta's output_index is only a grouping key: providers disagree with
// their own final output about it). Output items of other types (a hosted
// web search) become KindNote items that say what they did. Only the first
// choice of a Chat Completions stream is read. Chat content may be a string
// or a list of typed parts (Mistral: text and thinking). Refusals (Chat
// "refusal", Responses refusal parts) are the answer, flagged FlagRefusal;
// "finish_reason": "length" and response.incomplete for max_output_tokens
// flag the answer FlagTruncated; Responses messages of phase "commentary"
// are flagged FlagCommentary. With the endpoint's ThinkTags, a leading
// <think>…</think> of the answer is reasoning. Usage carries the four
// counts of albedo.Usage, nil where the provider is silent.
//
// A stream is finished by "[DONE]" (Chat Completions) or by
// response.completed or response.incomplete (Responses; an incomplete
// reply with no items, or one stopped for another reason than its output
// limit, is an error). A Chat Completions stream that ends without "[DONE]"
// after a finish reason is accepted; any other stream that ends early is
// an error, and so is one that ends with nothing in it (a bare "[DONE]").
// Errors inside a stream end it with the provider's message: a chunk with
// "error", vLLM's bare {"object": "error"}, llama.cpp's "error:" field
// line, the Responses error event and response.failed. A reply that fails
// after text or reasoning streamed returns that much, flagged FlagPartial,
// beside the error. One reply item (the answer, the reasoning, one call's
// arguments) or one stream line or event past DefaultMaxReply (8 MiB,
// lowered by the endpoint's MaxReplyBytes) ends the reply there with an
// error that names the cap and the provider; the stream is read no
// further, and what arrived is returned, flagged FlagPartial, a call's
// arguments as a KindNote item, which nothing runs. Event streams are
// parsed as the HTML standard
// says: any line ends, comments, multi-line data, and an event still open
// when the body ends is dropped.
//
// # Failures
//
// Every failure is an *albedo.Error with code CodeProviderError whose
// message names the provider and says what happened, with the HTTP status
// and the provider's own message (from its JSON error or its body text,
// cut to 500 bytes) when there was an answer; Details hold "provider" and
// "status". Connection failures before an answer, 429 and 5xx answers
// (but 501 and 505, which say the server cannot do it) are sent again up to MaxRetries times, waiting BaseBackoff doubled per retry
// up to MaxBackoff, a random half of it jitter, or what Retry-After asks
// (seconds or an HTTP date) up to four times MaxBackoff. Other answers are
// final. Nothing is retried once a stream has begun, since its deltas have
// been shown. A provider that sends nothing for IdleTimeout, before its
// answer or within its stream, fails the request ("sent nothing for 2m0s")
// without a retry, so that a silent provider costs one timeout, not five.
// A cancelled context ends the request at once and Stream returns
// ctx.Err(). An unknown protocol or a base URL that is not absolute http(s)
// is an albedo.EConfig error.
package openai
