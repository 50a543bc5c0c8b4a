"""SPARQL queries: the saved ones, and the checks a query passes before it runs."""
