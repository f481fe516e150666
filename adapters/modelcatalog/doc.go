// Package modelcatalog keeps albedo's model catalog: the file models.json
// in the albedo home, in the models.dev format
// ({provider: {api, models: {id: {limit: {context, output}, modalities:
// {input: [...]}}}}}), which albedo reads to learn the context windows of
// models, and a refresher that replaces it from a URL every few hours.
// *File implements albedo.ModelCatalog.
package modelcatalog
