"""One module per page type; each adds its pages and data files to a SiteBuild."""
