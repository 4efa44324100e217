// The leaderboard's plotly.js bundle: the core (scatter traces) and heatmap, the two trace types the site draws.
var Plotly = require('plotly.js/lib/core');
Plotly.register([require('plotly.js/lib/heatmap')]);
module.exports = Plotly;
