package landlock

// Tree makes the files and folders names under a fresh folder, for the
// tests outside the package (the kernel's, which import pykernel, which
// imports this package).
var Tree = tree
