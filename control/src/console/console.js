// The live console's entry: subscribes to the flow and hands each snapshot to the views. Plain ES
// modules served as they are; uPlot is the global its IIFE build defines (loaded before, deferred).
import { askToken, forgetToken, storedToken } from "./api.js";
import { createCharts, WINDOW_S } from "./charts.js";
import { allFaults, initFaultPanel, showFaultControls } from "./fault-panel.js";
import { subscribeFlow } from "./flow-source.js";
import { followScenario, initScenarioPanel } from "./scenario-panel.js";
import { showNumbers, showTiles, workQueues } from "./status-view.js";

const STATUS_TEXT = { live: "live", polling: "live (polling)", offline: "control service unreachable" };

function showTokenButton() {
  const b = document.getElementById("token-button");
  b.textContent = storedToken() ? "Forget token" : "Set token";
}

function init() {
  document.getElementById("window-minutes").textContent = String(WINDOW_S / 60);
  const charts = createCharts(allFaults);
  const connection = document.getElementById("connection");
  const updated = document.getElementById("updated-at");

  const tokenButton = document.getElementById("token-button");
  tokenButton.addEventListener("click", async () => {
    if (storedToken()) forgetToken();
    else await askToken();
    showTokenButton();
  });
  showTokenButton();
  document.addEventListener("token-change", showTokenButton);

  initFaultPanel();
  void initScenarioPanel();

  subscribeFlow(
    (flow) => {
      showNumbers(flow);
      showTiles(flow);
      showFaultControls(flow);
      followScenario(flow);
      charts.push(flow, workQueues(flow));
      updated.textContent = new Date(flow.at).toLocaleTimeString();
    },
    (status) => {
      connection.textContent = STATUS_TEXT[status] ?? status;
      connection.dataset.state = status;
    },
  );
}

init();
