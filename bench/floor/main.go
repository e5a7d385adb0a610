// Command floor does nothing. The bench runs it exactly as it runs
// joshbot, so the report shows what merely starting a static Go program
// costs on the machine at hand: the floor under every process figure.
package main

func main() {}
