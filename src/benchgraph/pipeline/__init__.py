"""The build: the steps from record files to the query store, in their order."""
