declare module "autocannon" {
  type Options = {
    url: string;
    connections?: number;
    duration?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  };
  type Histogram = { average: number; mean: number; p50: number; p99: number; max: number };
  type Result = {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    non2xx: number;
    "2xx": number;
    statusCodeStats?: Record<string, { count: number }>;
  };
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
