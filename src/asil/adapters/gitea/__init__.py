"""The Gitea adapter (service pattern): a Gitea server through its documented v1 REST API."""

from asil.plugins import DEVELOPER, packaged_app

PLUGIN = packaged_app(__name__, "GiteaAdapter", "service", region=DEVELOPER, extensions=(".gitea",),
                      builders={"gitea_seed": "build_gitea_seed"}, suite="live/gitea", render=False)
