package maxwell

// explainFailure says why text does not assemble: the message of an error
// at the text's position.
func explainFailure(text string, pc uint64, sm int, resolve Resolver, err error) string {
	return err.Error() + ": " + text
}
