// The peer libraries, bundled by esbuild into one script for the benchmark page.
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-webgpu";
import * as jax from "@jax-js/jax";

globalThis.peers = { tf, jax };
