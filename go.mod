module github.com/albedo-agent/albedo

go 1.26
