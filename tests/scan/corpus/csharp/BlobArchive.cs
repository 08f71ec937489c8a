using System;
using System.IO;
using System.Threading.Tasks;
using Azure.Storage.Blobs;
using Microsoft.Extensions.Logging;

namespace Acme.Billing.Archive
{
    /// <summary>Copies signed invoices to cold storage.</summary>
    public sealed class BlobArchive
    {
        // Fallback for local runs; production reads ConnectionStrings:Archive.
        private const string LocalConnection =
            "DefaultEndpointsProtocol=https;AccountName=acmeinvoicedev;AccountKey=Dss0HGIn6c5oWUrQRlOCFHmtGCumWY0Zfs0/HijqPjx7+v0R7r7CuEctAibflvYGCA4zu5NcfrzECuKDcIFuWw==;EndpointSuffix=core.windows.net";

        private const string DevelopmentStorage = "UseDevelopmentStorage=true";

        private readonly BlobContainerClient _container;
        private readonly ILogger<BlobArchive> _log;

        public BlobArchive(string? connectionString, ILogger<BlobArchive> log)
        {
            _container = new BlobContainerClient(connectionString ?? LocalConnection, "invoices");
            _log = log;
        }

        public async Task<Uri> StoreAsync(string invoiceNumber, Stream pdf)
        {
            var blob = _container.GetBlobClient($"{DateTime.UtcNow:yyyy/MM}/{invoiceNumber}.pdf");
            await blob.UploadAsync(pdf, overwrite: true);
            _log.LogInformation("archived {Invoice} as {Blob}", invoiceNumber, blob.Name);
            return blob.Uri;
        }
    }
}
