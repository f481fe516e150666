// Package markup holds the rules by which albedo shows the model's
// answers, shared by every frontend that shows them: the markdown dialect
// (CommonMark with GitHub's tables, task lists, strikethrough and bare
// links), the highlighting of code (Python and the shell) with the classes
// its tokens fall into, and the HTML form of an answer, in which raw HTML
// and images are shown as text. The console lays the parsed tree out for
// the terminal; the web page gets the HTML from the daemon.
package markup
