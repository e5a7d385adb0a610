package providers

// SetLimits shrinks a client's size limits so tests can hit them cheaply.
func SetLimits(c *Client, maxBody, maxLine int) {
	c.maxBody, c.maxLine = maxBody, maxLine
}
