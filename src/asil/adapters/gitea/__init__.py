"""The Gitea adapter (service pattern): a Gitea server through its documented v1 REST API."""
